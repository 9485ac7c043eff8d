"""Mp3Player of Contractor.NET's examples (Zoppi): 50 songs, play, pause, skip."""


class Mp3Player:
    """A player with a current song 0..50.

    inv: self.playing or self.current == 0
    inv: not self.pause or self.playing
    inv: self.current >= 0 and self.current <= 50
    """

    def __init__(self) -> None:
        self.playing = False
        self.pause = False
        self.current = 0

    def play(self) -> None:
        """
        pre: not self.playing or self.pause
        """
        self.playing = True
        self.pause = False

    def stop(self) -> None:
        """
        pre: self.playing
        """
        self.playing = False
        self.pause = False
        self.current = 0

    def toggle_pause(self) -> None:
        """
        pre: self.playing
        """
        self.pause = not self.pause

    def previous(self) -> None:
        """
        pre: self.playing and self.current > 0
        """
        self.current -= 1

    def next(self) -> None:
        """
        pre: self.playing and self.current < 50
        """
        self.current += 1
