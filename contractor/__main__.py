"""`python -m contractor`: the same command line as the `contractor` console script."""

from contractor.cli import main

if __name__ == "__main__":
    main(prog_name="contractor")
