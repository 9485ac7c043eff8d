# Objects held in self fields are followed within a method; a field's state on entry
# to a method is unknown (reported only with --strict).
from door import Door


class Train:
    def __init__(self) -> None:
        self.door = Door()
        self.door.start()
        self.door.open()  # expect: typestate-call


class Tram:
    def __init__(self) -> None:
        self.door = Door()
        self.door.open()
        self.door.close()

    def depart(self) -> None:
        self.door.start()


def client():
    Train()


def client_tram():
    tram = Tram()
    tram.depart()
