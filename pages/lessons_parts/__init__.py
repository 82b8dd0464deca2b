"""The lessons page's parts (pages/lessons.py runs them): results.py, the class's answers to a step
and the results table of a lesson (with its CSV). Only pages/lessons.py imports them."""
