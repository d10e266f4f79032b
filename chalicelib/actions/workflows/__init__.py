"""Work that spans areas: creating, exporting, importing and reindexing an organization;
changing its settings; the welcome bot's preview; the reference's operations this
deployment lacks."""
