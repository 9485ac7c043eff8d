"""VendingMachine of Contractor.NET's examples (item and money are unsigned ints)."""


class VendingMachine:
    """Sell an item, give the change back, then return the item.

    inv: self.selling if self.change > 0 else True
    """

    def __init__(self) -> None:
        self.selling = False
        self.change = 0

    def display_price(self, item: int) -> None:
        """
        pre: item >= 0 and not self.selling
        """

    def buy(self, item: int, money: int) -> None:
        """
        pre: item >= 0 and money >= 0 and not self.selling
        post: self.selling
        """
        self.selling = True
        if money > 0:
            self.change = 5

    def return_change(self) -> None:
        """
        pre: self.selling and self.change > 0
        post: self.change == 0
        """
        self.change = 0

    def return_item(self) -> None:
        """
        pre: self.change == 0 and self.selling
        post: not self.selling
        """
        self.selling = False
