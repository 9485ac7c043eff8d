# Loops iterate to a fixpoint: the second time round, the door is already open.
from door import Door


def client(n: int):
    door = Door()
    for _ in range(n):
        door.start()
        door.stop()
    door.open()


def client_bad(n: int):
    door = Door()
    while n > 0:
        door.open()  # expect: typestate-call
        n -= 1


def client_break(n: int):
    door = Door()
    while True:
        door.open()
        if n > 0:
            break
        door.close()
        n += 1
    door.close()
    door.start()
