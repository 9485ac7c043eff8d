# check: --mode complete
# In complete mode only a call disabled in every possible state is reported.
from door import Door


def client_maybe(flag: bool):
    door = Door()
    if flag:
        door.open()
    door.open()


def client_always(flag: bool):
    door = Door()
    if flag:
        door.open()
    door.stop()  # expect: typestate-call
