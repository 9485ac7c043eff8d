# A bank account in the deal dialect whose methods take parameters: deposit(amount)
# is enabled when some amount > 0 is allowed, withdraw(amount) when some
# 0 < amount <= balance exists, i.e. when the balance is positive.
# It shows deal.pre/post/ensure/inv/raises, `message=`, and deal's short form `_.x`.

import deal


@deal.inv(lambda account: account.balance >= 0, message="the balance is never negative")
class Account:
    """An account that can be frozen, and closed once it is empty."""

    def __init__(self) -> None:
        self.balance = 0
        self.frozen = False
        self.closed = False

    @deal.pre(lambda self, amount: amount > 0 and not self.frozen and not self.closed,
              message="deposit a positive amount into an open, unfrozen account")
    @deal.ensure(lambda self, amount, result: self.balance >= amount)
    def deposit(self, amount: int) -> None:
        self.balance += amount

    @deal.pre(lambda self, amount: 0 < amount <= self.balance)
    @deal.pre(lambda _: not _.self.frozen and not _.self.closed)
    @deal.raises(ValueError)
    def withdraw(self, amount: int) -> None:
        self.balance -= amount

    @deal.pre(lambda self: not self.frozen and not self.closed)
    def freeze(self) -> None:
        self.frozen = True

    @deal.pre(lambda self: self.frozen)
    def unfreeze(self) -> None:
        self.frozen = False

    @deal.pre(lambda self: self.balance == 0 and not self.frozen and not self.closed,
              message="only an empty, unfrozen account can be closed")
    def close(self) -> None:
        self.closed = True

    @deal.pure
    @deal.post(lambda result: result >= 0)
    def available(self) -> int:
        return 0 if self.frozen else self.balance


if __name__ == "__main__":
    account = Account()
    account.deposit(10)
    account.withdraw(10)
    account.close()
    print("closed with balance", account.balance)
