"""Blind audits of KG precision: sample evidence rows, judge them as a curator, score them."""
