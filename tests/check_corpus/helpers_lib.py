# Helpers in another module: their parameters' states are unknown here, so nothing is
# reported in this file; the callers passing a wrong state are reported (helpers_client.py).
from door import Door


def open_door(door):
    door.open()


def open_then_close(door: Door) -> None:
    open_door(door)
    door.close()


def make_moving() -> Door:
    moving = Door()
    moving.start()
    return moving


def passthrough(door):
    return door
