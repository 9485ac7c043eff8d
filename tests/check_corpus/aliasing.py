# Assignment aliases: both names share one object and one state.
from door import Door


def client():
    door = Door()
    other = door
    other.open()
    door.close()
    other.open()


def client_bad():
    door = Door()
    other = door
    other.open()
    door.open()  # expect: typestate-call
