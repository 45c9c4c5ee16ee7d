export { Button } from "./button";
export { Card } from "./card";
export { Spinner } from "./spinner";
