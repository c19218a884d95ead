"""Plan: a scenario and its flags validated into a Scenario, the pattern table, the matrix of cases."""
