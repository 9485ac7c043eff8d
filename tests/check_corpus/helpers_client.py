# A violation inside a helper is reported where the wrong state is passed in, with a
# note at the helper's line; objects returned by helpers are followed too.
import helpers_lib
from door import Door
from helpers_lib import make_moving, open_door, open_then_close, passthrough


def client():
    door = Door()
    open_door(door)
    door.close()
    open_then_close(door)
    door.open()


def client_bad():
    door = Door()
    door.start()
    open_door(door)  # expect: typestate-call


def client_nested():
    door = Door()
    door.open()
    open_then_close(door)  # expect: typestate-call


def client_made():
    door = make_moving()
    door.open()  # expect: typestate-call


def client_qualified():
    door = Door()
    helpers_lib.open_door(door)
    helpers_lib.open_door(door)  # expect: typestate-call


def client_alias_through_helper():
    door = Door()
    same = passthrough(door)
    same.open()
    door.open()  # expect: typestate-call
