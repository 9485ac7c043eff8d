"""An MP3 player whose limits are class and module constants (PEP 316 contracts).

Its typestate: stopped and silent {play}, stopped with volume {play, quieter}, playing
silent {louder, stop}, playing in between {louder, quieter, stop}, playing at the
maximum {quieter, stop}.
"""

FORMATS = ("mp3", "ogg")


class Mp3Player:
    """
    inv: 0 <= self.volume <= self.MAX_VOLUME
    inv: self.format in FORMATS
    """

    MAX_VOLUME = 3
    STEP = 1

    def __init__(self) -> None:
        self.playing = False
        self.volume = 0
        self.format = "mp3"

    def play(self, fmt: str) -> None:
        """pre: not self.playing and fmt in FORMATS"""
        self.playing = True
        self.format = fmt

    def stop(self) -> None:
        """pre: self.playing"""
        self.playing = False

    def louder(self) -> None:
        """pre: self.playing and self.volume + self.STEP <= Mp3Player.MAX_VOLUME"""
        self.volume += self.STEP

    def quieter(self) -> None:
        """pre: self.volume >= self.STEP"""
        self.volume -= self.STEP
