"""Service boundaries in Go, on both stores: gin, chi and net/http routes with their groups'
and routes' prefixes and their handlers (functions, imported functions, method values,
function literals), and net/http requests (`http.Get`, `http.NewRequest` with a
`fmt.Sprintf` URL and a package constant) matched to them, so `callers` of a Go handler lists
the function that sends the request."""

from __future__ import annotations

from cartograph.query import callers, dead_code
from cartograph.query.services import service_map
from indexing_support import write, write_tree
from services_support import http_edges, index, routes

GO_SERVICE = {
    "go.mod": "module example.com/catalog\n\ngo 1.22\n",
    "internal/handlers/users.go": (
        "package handlers\n"
        "\n"
        'import "github.com/gin-gonic/gin"\n'
        "\n"
        "type Users struct{}\n"
        "\n"
        "func (u *Users) Show(c *gin.Context) {}\n"
        "\n"
        "func (u *Users) Remove(c *gin.Context) {}\n"
        "\n"
        "func Health(c *gin.Context) {}\n"
        "\n"
        "func Unused() {}\n"
    ),
    # the usual layout: a package registers its routes on a group it is given
    "internal/teams/routes.go": (
        "package teams\n"
        "\n"
        'import "github.com/gin-gonic/gin"\n'
        "\n"
        "func List(c *gin.Context) {}\n"
        "\n"
        "func Register(db string, router *gin.RouterGroup) {\n"
        '\trouter.GET("/:team", List)\n'
        "}\n"
    ),
    # a test builds its own application: not the service's routes
    "internal/teams/routes_test.go": (
        "package teams\n"
        "\n"
        "import (\n"
        '\t"testing"\n'
        "\n"
        '\t"github.com/gin-gonic/gin"\n'
        ")\n"
        "\n"
        "func TestList(t *testing.T) {\n"
        "\tr := gin.New()\n"
        '\tRegister("", r.Group("/teams"))\n'
        '\tr.GET("/only-in-tests", List)\n'
        "}\n"
    ),
    "cmd/api/main.go": (
        "package main\n"
        "\n"
        "import (\n"
        '\t"net/http"\n'
        "\n"
        '\t"example.com/catalog/internal/handlers"\n'
        '\t"example.com/catalog/internal/teams"\n'
        '\t"github.com/gin-gonic/gin"\n'
        '\t"github.com/go-chi/chi/v5"\n'
        ")\n"
        "\n"
        "func listItems(w http.ResponseWriter, r *http.Request) {}\n"
        "\n"
        "func getItem(w http.ResponseWriter, r *http.Request) {}\n"
        "\n"
        "func serveFile(w http.ResponseWriter, r *http.Request) {}\n"
        "\n"
        "func setup() *gin.Engine {\n"
        "\tr := gin.Default()\n"
        '\tr.GET("/health", handlers.Health)\n'
        "\tusers := &handlers.Users{}\n"
        '\tapi := r.Group("/api")\n'
        '\tv1 := api.Group("/v1")\n'
        '\tv1.GET("/users/:id", users.Show)\n'
        '\tv1.DELETE("/users/:id", users.Remove)\n'
        '\tv1.POST("/users", func(c *gin.Context) {})\n'
        '\tteams.Register("db", v1.Group("/teams"))\n'
        "\treturn r\n"
        "}\n"
        "\n"
        "func items() http.Handler {\n"
        "\tc := chi.NewRouter()\n"
        '\tc.Route("/items", func(r chi.Router) {\n'
        '\t\tr.Get("/", listItems)\n'
        '\t\tr.Get("/{itemID}", getItem)\n'
        "\t})\n"
        "\treturn c\n"
        "}\n"
        "\n"
        "func main() {\n"
        "\tmux := http.NewServeMux()\n"
        '\tmux.HandleFunc("GET /files/{path...}", serveFile)\n'
        '\thttp.HandleFunc("/ping", func(w http.ResponseWriter, r *http.Request) {})\n'
        "\tcache := map[string]int{}\n"
        '\t_ = cache["/api/v1/users"]\n'
        "}\n"
    ),
}
GO_ROUTES = {
    "GET /health": "handlers.Health",
    "GET /api/v1/users/{id}": "handlers.Users.Show",
    "DELETE /api/v1/users/{id}": "handlers.Users.Remove",
    "POST /api/v1/users": "main.setup",  # a function literal: the function it is written in
    "GET /api/v1/teams/{team}": "teams.List",  # on the group passed to teams.Register
    "GET /items": "main.listItems",
    "GET /items/{itemID}": "main.getItem",
    "GET /files/{path}": "main.serveFile",
    "ANY /ping": "main.main",
}
GO_CLIENT = {
    "go.mod": "module example.com/storefront\n\ngo 1.22\n",
    "client.go": (
        "package client\n"
        "\n"
        "import (\n"
        '\t"fmt"\n'
        '\t"net/http"\n'
        '\t"os"\n'
        ")\n"
        "\n"
        "func FetchUser(id string) (*http.Response, error) {\n"
        '\treturn http.Get(base + "/users/" + id)\n'
        "}\n"
        "\n"
        "func DeleteUser(id string) error {\n"
        '\treq, err := http.NewRequest(http.MethodDelete, fmt.Sprintf("%s/users/%s", base, id), '
        "nil)\n"
        "\tif err != nil {\n"
        "\t\treturn err\n"
        "\t}\n"
        "\t_, err = http.DefaultClient.Do(req)\n"
        "\treturn err\n"
        "}\n"
        "\n"
        "func Item(id string) {\n"
        '\thttp.Get(os.Getenv("CATALOG_URL") + "/items/" + id)\n'
        "}\n"
    ),
    # the constant is in another file of the package
    "config.go": 'package client\n\nconst base = "http://catalog:8080/api/v1"\n',
    ".cartograph.toml": '[services]\n"catalog:8080" = "catalog"\n"env:CATALOG_URL" = "catalog"\n',
}
GO_CLIENT_REQUESTS = {
    ("client.FetchUser", "GET", "catalog:8080", "/api/v1/users/{}"),
    ("client.DeleteUser", "DELETE", "catalog:8080", "/api/v1/users/{}"),
    ("client.Item", "GET", "env:CATALOG_URL", "/items/{}"),
}
GO_CLIENT_EDGES = {
    ("client.FetchUser", "GET /api/v1/users/{id}", "http"),
    ("client.DeleteUser", "DELETE /api/v1/users/{id}", "http"),
    ("client.Item", "GET /items/{itemID}", "http"),
}


def test_routes_of_gin_chi_and_net_http_with_their_prefixes(tmp_path, stores):
    store = stores.open()
    index(store, write_tree(tmp_path / "catalog", GO_SERVICE), "catalog")
    assert routes(store, "catalog") == GO_ROUTES
    # a handler reached only through its route is live; a function nothing reaches is not
    dead = {i.symbol.qualname for i in dead_code(store, "catalog", verdicts=["dead"]).items}
    assert "handlers.Unused" in dead
    assert not dead & set(GO_ROUTES.values())


def test_go_requests_reach_go_routes_and_callers_say_so(tmp_path, stores):
    store = stores.open()
    catalog = write_tree(tmp_path / "catalog", GO_SERVICE)
    client = write_tree(tmp_path / "storefront", GO_CLIENT)
    index(store, client, "storefront")
    index(store, catalog, "catalog")
    listed = {
        (r.source.qualname, r.method, r.base, r.path)
        for r in service_map(store, "storefront").requests
        if r.source
    }
    assert listed == GO_CLIENT_REQUESTS
    assert http_edges(store, "storefront") == GO_CLIENT_EDGES
    page = callers(store, "catalog:internal/handlers/users.go#handlers.Users.Show")
    reached = {(n.symbol.qualname, n.type, n.through) for n in page.items}
    assert ("client.FetchUser", "HTTP_CALLS", "GET /api/v1/users/{id}") in reached

    # the group's prefix changes: the clients' requests reach nothing there any more
    main = GO_SERVICE["cmd/api/main.go"].replace('api.Group("/v1")', 'api.Group("/v2")')
    write(catalog, "cmd/api/main.go", main)
    index(store, catalog, "catalog")
    assert http_edges(store, "storefront") == {("client.Item", "GET /items/{itemID}", "http")}
