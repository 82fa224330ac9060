"""Count the words of a text file and print the most common ones.

Usage: python3 wordcount.py FILE [--top N] [--min-length L]
"""

import argparse
import collections
import re


def count_words(text: str) -> collections.Counter:
    return collections.Counter(re.findall(r"[a-z']+", text.lower()))


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description="the most common words of a file")
    p.add_argument("file")
    p.add_argument("--top", type=int, default=5, help="how many words to show (default 5)")
    p.add_argument("--min-length", type=int, default=1, help="ignore words shorter than this (default 1)")
    args = p.parse_args(argv)
    with open(args.file, encoding="utf-8") as f:
        counts = count_words(f.read())
    counts = collections.Counter({w: n for w, n in counts.items() if len(w) >= args.min_length})
    for word, n in counts.most_common(args.top):
        print(f"{n:>5} {word}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
