// Placeholder for the fast exact accumulator (issue 8).
