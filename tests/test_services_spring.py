"""Service boundaries in Java with Spring, on both stores: `@RestController` routes under the
class's `@RequestMapping` prefix, a `@FeignClient` interface's methods as the requests they
declare, and RestTemplate requests with a class constant in the URL, so `callers` of a
controller method lists the Feign method (and, one hop on, the code that calls it)."""

from __future__ import annotations

from cartograph.query import callers, dead_code, trace
from cartograph.query.services import service_map
from indexing_support import write_tree
from services_support import http_edges, index, routes

USERS = {
    "src/main/java/com/example/users/UserController.java": (
        "package com.example.users;\n"
        "\n"
        "import org.springframework.http.HttpMethod;\n"
        "import org.springframework.web.bind.annotation.*;\n"
        "import org.springframework.web.client.RestTemplate;\n"
        "\n"
        "@RestController\n"
        '@RequestMapping("/api/users")\n'
        "public class UserController {\n"
        '    private static final String BILLING = "http://billing:8080";\n'
        "    private final RestTemplate rest = new RestTemplate();\n"
        "\n"
        '    @GetMapping("/{id}")\n'
        "    public String show(@PathVariable Long id) {\n"
        '        return rest.getForObject(BILLING + "/invoices/" + id, String.class);\n'
        "    }\n"
        "\n"
        '    @RequestMapping(value = {"", "/new"}, method = RequestMethod.POST)\n'
        "    public void create() {}\n"
        "\n"
        '    @DeleteMapping(path = "/{id}")\n'
        "    void remove(@PathVariable Long id) {\n"
        '        rest.exchange(BILLING + "/invoices/" + id, HttpMethod.DELETE, null, Void.class);\n'
        "    }\n"
        "\n"
        "    void helper() {}\n"
        "}\n"
    ),
    # not a controller: its mapping-like annotations are not routes
    "src/main/java/com/example/users/Plain.java": (
        "package com.example.users;\n"
        "\n"
        "public class Plain {\n"
        '    @GetMapping("/nothing")\n'
        "    public void nothing() {}\n"
        "}\n"
    ),
}
USERS_ROUTES = {
    "GET /api/users/{id}": "com.example.users.UserController.show",
    "POST /api/users": "com.example.users.UserController.create",
    "POST /api/users/new": "com.example.users.UserController.create",
    "DELETE /api/users/{id}": "com.example.users.UserController.remove",
}
SHOP = {
    "src/main/java/com/example/shop/UsersClient.java": (
        "package com.example.shop;\n"
        "\n"
        "import org.springframework.cloud.openfeign.FeignClient;\n"
        "import org.springframework.web.bind.annotation.GetMapping;\n"
        "import org.springframework.web.bind.annotation.PathVariable;\n"
        "\n"
        '@FeignClient(name = "users")\n'
        "public interface UsersClient {\n"
        '    @GetMapping("/api/users/{id}")\n'
        '    String user(@PathVariable("id") Long id);\n'
        "}\n"
    ),
    "src/main/java/com/example/shop/Orders.java": (
        "package com.example.shop;\n"
        "\n"
        "public class Orders {\n"
        "    private final UsersClient users;\n"
        "\n"
        "    Orders(UsersClient users) { this.users = users; }\n"
        "\n"
        "    String owner(Long id) { return users.user(id); }\n"
        "}\n"
    ),
    # the Feign client's service name, configured to the repository that serves it
    ".cartograph.toml": '[services]\n"users" = "users"\n',
}


def test_spring_routes_and_rest_template_requests(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "users", USERS), "users")
    assert routes(store, "users") == USERS_ROUTES
    requests = {
        (r.source.qualname, r.method, r.base, r.path)
        for r in service_map(store, "users").requests
        if r.source
    }
    assert requests == {
        ("com.example.users.UserController.show", "GET", "billing:8080", "/invoices/{}"),
        ("com.example.users.UserController.remove", "DELETE", "billing:8080", "/invoices/{}"),
    }
    dead = {i.symbol.qualname for i in dead_code(store, "users", verdicts=["dead"]).items}
    assert "com.example.users.UserController.helper" in dead
    assert not dead & set(USERS_ROUTES.values())


def test_a_feign_client_reaches_the_controller(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "shop", SHOP), "shop")
    index(store, write_tree(tmp_path / "users", USERS), "users")
    assert http_edges(store, "shop") == {
        ("com.example.shop.UsersClient.user", "GET /api/users/{id}", "http")
    }
    page = callers(store, "com.example.users.UserController.show")
    reached = {(n.symbol.qualname, n.type) for n in page.items}
    assert ("com.example.shop.UsersClient.user", "HTTP_CALLS") in reached
    # the code that calls the Feign method reaches the controller, two hops on
    steps = trace(store, "com.example.shop.Orders.owner", direction="out", depth=4).steps
    assert "com.example.users.UserController.show" in {s.symbol.qualname for s in steps}
