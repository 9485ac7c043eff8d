"""`python -m contractor`: the same command line as the `contractor` console script."""

if __name__ == "__main__":
    import sys

    try:
        from contractor.cli import main
    except KeyboardInterrupt:  # Ctrl-C while starting up: nothing was done
        print("interrupted; nothing written", file=sys.stderr)
        sys.exit(130)
    main(prog_name="contractor")
