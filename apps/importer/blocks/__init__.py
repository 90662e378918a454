"""WordPress block editor content: ``parser`` reads the block grammar, ``convert`` turns blocks into Portable Text."""
