"""Writes arithmetic-50.jsonl (run once: python3 make_arithmetic.py).

arith-01..15: easy items on one-digit numbers 1..9; odd ids ask a+b, even ids a*b.
arith-16..50: Du et al. (2023)'s arithmetic task, a+b*c+d-e*f with integers 0..29.
Numbers come from Python's random.Random(SEED), drawn in id order; a draw whose
expression already appeared is drawn again, so no item repeats. Answers are
computed with Python integer arithmetic (multiplication before addition).
"""
import json
import os
import random

SEED = 36


def main():
    rng = random.Random(SEED)
    items, seen = [], set()
    for n in range(1, 51):
        while True:
            if n <= 15:
                a, b = rng.randint(1, 9), rng.randint(1, 9)
                if n % 2 == 1:
                    expr, value = f"{a}+{b}", a + b
                else:
                    expr, value = f"{a}*{b}", a * b
            else:
                a, b, c, d, e, f = (rng.randint(0, 29) for _ in range(6))
                expr = f"{a}+{b}*{c}+{d}-{e}*{f}"
                value = a + (b * c) + d - (e * f)
            if expr not in seen:
                break
        seen.add(expr)
        items.append((n, expr, value))
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "arithmetic-50.jsonl")
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        for n, expr, value in items:
            assert eval(expr) == value  # Python's own precedence agrees
            item = {"id": f"arith-{n:02d}", "question": f"What is {expr}?",
                    "answer": str(value), "kind": "number"}
            out.write(json.dumps(item, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
