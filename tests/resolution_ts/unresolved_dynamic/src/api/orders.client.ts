import { HttpClient } from "@angular/common/http";
import { Injectable } from "@angular/core";

@Injectable({ providedIn: "root" })
export class OrdersClient {
  constructor(private readonly http: HttpClient) {}

  place(order: { sku: string; qty: number }) {
    return this.http.post("/api/orders", order);
  }
}
