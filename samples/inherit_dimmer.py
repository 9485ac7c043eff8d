# Inheritance in one file (PEP 316 dialect): Dimmer extends Light. The base contributes
# the fields `on` and `level`, its invariant, its constructor (through super().__init__()),
# the inherited action `switch_off`, and the precondition and postcondition of
# `switch_on`, which Dimmer overrides without a precondition of its own (so the base's
# holds, as CrossHair reads PEP 316) and extends through super().switch_on().
# Typestate: off {switch_on}, on at level 1..2 {brighter, dimmer, switch_off} (brighter
# only when unlocked), on at level 3 {dimmer, switch_off}, and locked variants.


class Light:
    """A light with a power switch.

    inv: 0 <= self.level <= 3
    inv: self.on or self.level == 0
    """

    def __init__(self) -> None:
        self.on = False
        self.level = 0

    def switch_on(self) -> None:
        """
        pre: not self.on
        post: self.on
        """
        self.on = True

    def switch_off(self) -> None:
        """
        pre: self.on
        """
        self.on = False
        self.level = 0


class Dimmer(Light):
    """A light whose level can be changed while it is on; a locked dimmer cannot brighten.

    inv: self.level <= 1 or not self.locked
    """

    def __init__(self, locked: bool) -> None:
        super().__init__()
        self.locked = locked

    def switch_on(self) -> None:
        """
        post: self.level == 1
        """
        super().switch_on()
        self.level = 1

    def brighter(self) -> None:
        """
        pre: self.on and self.level < 3 and not self.locked
        """
        self.level += 1

    def dimmer(self) -> None:
        """
        pre: self.level > 1
        """
        self.level -= 1

    def unlock(self) -> None:
        """
        pre: self.locked
        """
        self.locked = False
