"""Print the total of the orders in a CSV export (default: orders.csv)."""

import csv
import sys


def total(path: str) -> float:
    with open(path, newline="", encoding="utf-8") as f:
        return sum(float(row["amount"].replace(",", "")) for row in csv.DictReader(f))


if __name__ == "__main__":
    path = sys.argv[1] if len(sys.argv) > 1 else "orders.csv"
    print(f"TOTAL {total(path):.2f}")
