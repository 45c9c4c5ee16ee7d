import { track } from "../analytics";
import { useToggle } from "../hooks/use-toggle";
import * as ui from "./ui";
import { Spinner } from "./ui";
import Card from "./ui/card";

interface User {
  id: string;
  name: string;
}

function UserRow({ user }: { user: User }) {
  return <li>{user.name}</li>;
}

export function UserPanel({ users, loading }: { users: User[]; loading: boolean }) {
  const [expanded, toggle] = useToggle();

  const handleExpand = () => {
    track("panel.expand", { count: users.length });
    toggle();
  };

  if (loading) {
    return <Spinner size={24} />;
  }

  const visible = expanded ? users : users.slice(0, 3);
  return (
    <Card title="Users">
      <ul>
        {visible.map((user) => (
          <UserRow key={user.id} user={user} />
        ))}
      </ul>
      <ui.Button onClick={handleExpand}>{expanded ? "Less" : "More"}</ui.Button>
      <ui.Button onClick={() => track("panel.refresh")}>Refresh</ui.Button>
    </Card>
  );
}
