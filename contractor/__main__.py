"""`python -m contractor`: the same command line as the `contractor` console script."""

if __name__ == "__main__":
    from contractor.entry import run

    run()
