# The paper's client corrected: close() the open door before opening it again.
from door import Door


def client():
    door = Door()
    door.start()
    door.alarm()
    door.safe()
    door.stop()
    door.close()
    door.open()
