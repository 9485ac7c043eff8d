# try/except/else/finally: an explicit raise jumps to the handler with the state it had.
from door import Door


def client_bad(fail: bool):
    door = Door()
    try:
        door.start()
        if fail:
            raise ValueError("stopped short")
        door.stop()
    except ValueError:
        pass
    door.open()  # expect: typestate-call


def client(fail: bool):
    door = Door()
    door.start()
    try:
        if fail:
            raise ValueError("stopped short")
    finally:
        door.stop()
    door.open()


def client_else(fail: bool):
    door = Door()
    try:
        if fail:
            raise KeyError("no")
    except KeyError:
        door.start()
        door.stop()
    else:
        door.open()
        door.close()
    door.open()
