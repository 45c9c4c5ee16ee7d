import express from "express";
import { User } from "@acme/core";
import { findUser, greet } from "./routes/users";

const users = [new User("u1", "ada@example.com")];
const app = express();

app.get("/users/:id", (req, res) => {
  res.send(greet(findUser(users, req.params.id)));
});

app.listen(3000);
