# check: --must-call Connection.close
# A connection left unclosed when it goes out of scope is a typestate-leak; returning
# it or a `with` block (its __exit__ closes it) hands the obligation on.
from connection import Connection


def client_leak():
    c = Connection()  # expect: typestate-leak
    c.connect()
    c.send(1)


def client_closed():
    c = Connection()
    c.connect()
    c.send(2)
    c.close()


def client_with():
    with Connection() as c:
        c.connect()
        c.send(3)


def client_returned() -> Connection:
    c = Connection()
    c.connect()
    return c


def client_branch_leak(flag: bool):
    c = Connection()  # expect: typestate-leak
    c.connect()
    if flag:
        c.close()


def client_rebound():
    c = Connection()  # expect: typestate-leak
    c = Connection()
    c.close()
