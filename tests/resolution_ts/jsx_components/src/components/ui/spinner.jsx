export function Spinner({ size = 16 }) {
  return <span className="spinner" style={{ width: size, height: size }} aria-busy="true" />;
}
