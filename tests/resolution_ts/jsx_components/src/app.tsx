import { createRoot } from "react-dom/client";
import { Button, Card } from "./components/ui";
import { UserPanel } from "./components/user-panel";

export default function App() {
  return (
    <main>
      <Card title="Dashboard">
        <UserPanel users={[]} loading={false} />
        <Button>Reload</Button>
      </Card>
      <>
        <footer>v1</footer>
      </>
    </main>
  );
}

createRoot(document.getElementById("root")!).render(<App />);
