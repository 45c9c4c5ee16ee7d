export const api = {
  baseUrl: "https://api.example.test",

  get(path: string) {
    return request("GET", path);
  },

  post: (path: string, body: unknown) => request("POST", path, body),

  remove: function (path: string) {
    return request("DELETE", path);
  },
};

function request(method: string, path: string, body?: unknown): Promise<Response> {
  return fetch(`${api.baseUrl}${path}`, { method, body: body === undefined ? undefined : JSON.stringify(body) });
}
