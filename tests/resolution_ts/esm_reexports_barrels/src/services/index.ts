export * from "./billing";
export { NotificationService as Notifier } from "./notifications/notification.service";
export * as audit from "./audit";
