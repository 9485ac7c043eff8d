"""The scaling family of the benchmark: N independent flags, each with set_i and clear_i.

Its typestate has 2^N states and N * 2^N transitions (every state enables N methods,
one per flag, each leading to exactly one state).
"""

from __future__ import annotations


def flags_source(n: int) -> str:
    lines = [f"class Flags{n}:", f'    """{n} independent flags."""', "", "    def __init__(self) -> None:"]
    lines += [f"        self.f{i} = False" for i in range(n)]
    for i in range(n):
        lines += ["", f"    def set_{i}(self) -> None:", f'        """pre: not self.f{i}"""',
                  f"        self.f{i} = True"]
        lines += ["", f"    def clear_{i}(self) -> None:", f'        """pre: self.f{i}"""',
                  f"        self.f{i} = False"]
    return "\n".join(lines) + "\n"
