import type { ReactNode } from "react";

export interface ButtonProps {
  onClick?: () => void;
  children: ReactNode;
}

export function Button({ onClick, children }: ButtonProps) {
  return (
    <button type="button" className="btn" onClick={onClick}>
      {children}
    </button>
  );
}
