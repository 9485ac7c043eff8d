# The client of the Contractor.NET paper: after safe() the door is still open, so
# stop() leaves it in S3 {alarm, close, start} and open() is not enabled.
from door import Door


def client():
    door = Door()
    door.start()
    door.alarm()
    door.safe()
    door.stop()
    door.open()  # expect: typestate-call
