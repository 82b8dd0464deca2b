"""The made-up bilingual language every shipped model learns: its grammar and lexicon (corpus.py)
and the script helpers both languages need (text.py). Imports nothing of the project."""
