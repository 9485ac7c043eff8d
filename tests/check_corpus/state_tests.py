# A state test (is_open(), a pure bool method) narrows the state on each branch.
from file import READ, WRITE, File


def client(flag: bool):
    f = File()
    if flag:
        f.open(READ)
    if f.is_open():
        f.close()
    f.open(WRITE)
    f.write(1)


def client_bad(flag: bool):
    f = File()
    if flag:
        f.open(READ)
    if not f.is_open():
        return
    f.read()
    f.open(WRITE)  # expect: typestate-call


def client_assert(flag: bool):
    f = File()
    if flag:
        f.open(WRITE)
    assert not f.is_open()
    f.open(READ)
    f.read()
