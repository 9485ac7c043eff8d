"""Tags on an item, at most MAX_TAGS of them; a "pinned" item must be unpinned before its
tags are cleared (a set field; PEP 316 contracts).

Its typestate: untagged {tag}; some tags, not pinned {clear, tag, untag}; some tags,
pinned {tag, unpin, untag}; full, not pinned {clear, untag}; full and pinned {unpin, untag}.
"""


class TagSet:
    """
    inv: len(self.tags) <= self.MAX_TAGS
    """

    MAX_TAGS = 3

    def __init__(self) -> None:
        self.tags: set[str] = set()

    def tag(self, t: str) -> None:
        """pre: len(self.tags) < self.MAX_TAGS and len(t) > 0"""
        self.tags.add(t)

    def untag(self, t: str) -> None:
        """pre: t in self.tags"""
        self.tags.discard(t)

    def unpin(self) -> None:
        """pre: "pinned" in self.tags"""
        self.tags.remove("pinned")

    def clear(self) -> None:
        """pre: len(self.tags) > 0 and "pinned" not in self.tags"""
        self.tags.clear()
