"""What a page shows: its context, presenters, the sheet's drawing, forms, labels and
charts. Reads through the selectors, writes nothing; views and services call it."""
