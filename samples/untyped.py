"""A ticket printer written as ordinary, unannotated Python: contractor types its fields
from what is assigned to them and treats the rest as opaque values.

It shows untyped parameters (opaque), a field assigned None and a str (Optional[str]),
a `# type:` comment, a module constant and a class constant, a name-mangled field
(`self.__state`), a private guard helper, and a call on an opaque object
(`self.log.append(...)`) that cannot change the printer's own fields.
"""

IDLE = 0
PRINTING = 1
LIMIT = 2


class Printer:
    PAGE = 1

    def __init__(self, name, log=None):
        self.name = name
        self.__state = IDLE
        self.pages = 0
        self.job = None
        self.log = log
        self.owner = None  # type: Optional[int]

    def _check_idle(self):
        if self.__state != IDLE:
            raise RuntimeError("busy printing")

    def start(self, job: str):
        self._check_idle()
        if self.pages >= LIMIT:
            raise RuntimeError("out of paper")
        self.__state = PRINTING
        self.job = job

    def feed(self):
        if self.job is None:
            raise RuntimeError("nothing to print")
        if self.pages >= 3:
            raise RuntimeError("the tray is empty")
        self.pages += self.PAGE
        if self.log is not None:
            self.log.append(self.pages)

    def finish(self):
        if self.__state != PRINTING:
            raise RuntimeError("not printing")
        self.__state = IDLE
        self.job = None

    def refill(self, amount):
        if not amount:
            raise ValueError("nothing to refill with")
        self._check_idle()
        self.pages = 0

    def claim(self, who: int):
        if self.owner is not None:
            raise RuntimeError("already claimed")
        self.owner = who
