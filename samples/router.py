"""An HTTP router: routes from path to request method, configured while stopped, served
while running (a dict field, a module tuple constant, `startswith`, and `all()` over the
routes in the invariant; PEP 316 contracts).

Its typestate: no routes {add}, configured {add, remove, start}, running without a POST
route {serve, stop}, running with one {serve, stop, submit}.
"""

ALLOWED = ("GET", "POST")


class Router:
    """
    inv: all(p.startswith("/") for p in self.routes)
    inv: not self.running or len(self.routes) > 0
    """

    def __init__(self) -> None:
        self.routes: dict[str, str] = {}  # path -> request method
        self.running = False

    def add(self, path: str, method: str) -> None:
        """pre: not self.running and path.startswith("/") and method in ALLOWED"""
        self.routes[path] = method

    def remove(self, path: str) -> None:
        """pre: not self.running and path in self.routes"""
        del self.routes[path]

    def start(self) -> None:
        """pre: not self.running and len(self.routes) > 0"""
        self.running = True

    def stop(self) -> None:
        """pre: self.running"""
        self.running = False

    def serve(self, path: str) -> str:
        """pre: self.running and path in self.routes"""
        return self.routes[path]

    def submit(self, path: str) -> None:
        """pre: self.running and self.routes.get(path) == "POST"
        """
        self.routes[path] = "POST"
