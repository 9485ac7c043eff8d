# A correct client using every construct: no finding.
from door import Door


def shut(door: Door) -> None:
    door.close()


def client(n: int, flag: bool):
    door = Door()
    for i in range(n):
        if i % 2 == 0 and flag:
            door.alarm()
            door.safe()
        else:
            door.open()
        shut(door)
    while flag:
        door.start()
        door.stop()
        flag = False
    try:
        door.open()
    finally:
        door.close()
    doors = [Door()]
    doors[0].open()
    unknown = door if flag else None
    door.open()
    return unknown
