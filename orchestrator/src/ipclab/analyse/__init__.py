"""Analyse: statistics from saved samples (a case's figures, intervals, ratios, two runs compared)."""
