export declare function formatDate(date: Date): string;
export declare function parseDate(value: string): Date;
