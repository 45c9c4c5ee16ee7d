// Cartograph's GraphiQL page: GraphiQL (from the package's vendor/ folder) sending the API token
// pasted in the page's field as a bearer token with every query. The token stays in this tab
// (sessionStorage, under the dashboard's key: a token given to one page serves the other).
"use strict";

(function () {
  const TOKEN_KEY = "cartograph-token";
  const HINT = "cartograph token create --name graphiql --scopes read";
  // "optional": this server answers this browser without a token (set by the server)
  const open = document.body.dataset.tokens === "optional";
  const form = document.getElementById("token-form");
  const input = document.getElementById("token");
  const state = document.getElementById("token-state");
  const container = document.getElementById("graphiql");
  let token = sessionStorage.getItem(TOKEN_KEY) || "";
  let root = null;

  function say(text) {
    state.textContent = text;
  }

  function fetcher(using) {
    return async function (params) {
      const headers = { "content-type": "application/json", accept: "application/json" };
      if (using) headers.authorization = `Bearer ${using}`;
      const response = await fetch("graphql", {
        method: "POST",
        headers,
        body: JSON.stringify(params),
      });
      const answer = await response.json().catch(() => ({
        detail: `the server answered ${response.status}`,
      }));
      if (response.status === 401) {
        say(using ? "That token was refused: paste another." : `This server needs a token (${HINT}).`);
      } else if (response.status === 403) {
        say(answer.detail || "This token may not read the graph.");
      }
      return answer;
    };
  }

  function start() {
    if (!token && !open) {
      container.replaceChildren();
      const note = document.createElement("p");
      note.className = "waiting";
      note.textContent = `Paste an API token above to start (one with the read scope: ${HINT}).`;
      container.append(note);
      say("");
      return;
    }
    if (root === null) {
      container.replaceChildren();
      root = ReactDOM.createRoot(container);
    }
    // a new token: a new GraphiQL, which reads the schema again with it
    root.render(React.createElement(GraphiQL, { key: token || "-", fetcher: fetcher(token) }));
    say(token ? "Queries are sent with this token." : "This server answers this browser without a token.");
  }

  form.addEventListener("submit", (event) => {
    event.preventDefault();
    token = input.value.trim();
    input.value = "";
    if (token) sessionStorage.setItem(TOKEN_KEY, token);
    else sessionStorage.removeItem(TOKEN_KEY);
    start();
  });
  start();
})();
