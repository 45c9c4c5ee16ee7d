"""What a change reaches: the diff, the symbols it changes, what breaks, what may be affected,
the tests to run, the owners to ask and the co-changes it is missing."""
