# Branches join their states: after the if, the door may be open (S3) or closed (S1).
from door import Door


def client(flag: bool):
    door = Door()
    if flag:
        door.open()
    door.start()
    door.stop()
    door.open()


def client_bad(flag: bool):
    door = Door()
    if flag:
        door.open()
    else:
        door.alarm()
        door.safe()
    door.close()
    door.open()
    door.open()  # expect: typestate-call


def client_maybe_open(flag: bool):
    door = Door()
    if flag:
        door.open()
    door.open()  # expect: typestate-call
