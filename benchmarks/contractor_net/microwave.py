"""Microwave of Contractor.NET's examples (Zoppi)."""


class Microwave:
    """An oven that pauses while its door is open.

    inv: not self.pause or self.door_open
    inv: not self.pause or self.cooking
    inv: not self.cooking or not self.door_open or self.pause
    """

    def __init__(self) -> None:
        self.cooking = False
        self.door_open = False
        self.pause = False

    def start(self, seconds: int) -> None:
        """
        pre: not self.cooking and not self.door_open
        """
        self.cooking = True

    def stop(self) -> None:
        """
        pre: self.cooking
        """
        self.cooking = False
        self.pause = False

    def finish(self) -> None:
        """
        pre: self.cooking and not self.pause
        """
        self.cooking = False

    def open_door(self) -> None:
        """
        pre: not self.door_open
        """
        self.door_open = True
        if self.cooking:
            self.pause = True

    def close_door(self) -> None:
        """
        pre: self.door_open
        """
        self.door_open = False
        self.pause = False
