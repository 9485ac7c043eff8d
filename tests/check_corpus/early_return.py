# An early return leaves the normal flow: only the other path reaches the end.
from door import Door


def client(flag: bool):
    door = Door()
    if flag:
        door.open()
        return
    door.open()


def client_bad(flag: bool):
    door = Door()
    if not flag:
        return
    door.start()
    door.open()  # expect: typestate-call
