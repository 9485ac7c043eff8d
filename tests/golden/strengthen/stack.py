# A bounded stack in the icontract dialect: the input of the strengthening golden file
# whose typestate is non-deterministic (push can fill the stack or not).

import icontract


@icontract.invariant(lambda self: 0 <= self.size <= self.capacity, "size within capacity")
class BoundedStack:
    """A stack of plates that holds at most `capacity` of them."""

    @icontract.require(lambda capacity: capacity >= 1, "a stack holds at least one plate")
    def __init__(self, capacity: int) -> None:
        self.capacity = capacity
        self.size = 0

    @icontract.require(lambda self: self.size < self.capacity, "the stack is not full")
    @icontract.snapshot(lambda self: self.size, name="size")
    @icontract.ensure(lambda self, OLD: self.size == OLD.size + 1)
    def push(self) -> None:
        self.size += 1

    @icontract.require(lambda self: self.size > 0, "the stack is not empty")
    @icontract.snapshot(lambda self: self.size, name="size")
    @icontract.ensure(lambda self, OLD: self.size == OLD.size - 1)
    def pop(self) -> None:
        self.size -= 1

    @icontract.require(lambda self: self.size > 0, "the stack is not empty")
    @icontract.ensure(lambda self, result: result == self.size - 1)
    def peek(self) -> int:
        """The index of the top plate."""
        return self.size - 1

    @icontract.ensure(lambda self: self.size == 0)
    def clear(self) -> None:
        self.size = 0
