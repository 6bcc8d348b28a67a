-- Each chapter whose text is written tells the gateways on commit (NOTIFY lore_chapter_written), so that a chapter
-- written by another process (the CLI, an import, a sync, MCP over stdio) is parsed for the chapter check before it is
-- asked for (src/core/conflicts/chapterParses.ts). The payload: project id, chapter row id, length of the text.
CREATE FUNCTION lore_chapter_written() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'UPDATE' AND OLD.text IS NOT DISTINCT FROM NEW.text THEN
    RETURN NULL;
  END IF;
  PERFORM pg_notify('lore_chapter_written', NEW."projectId" || ' ' || NEW.id || ' ' || length(NEW.text));
  RETURN NULL;
END;
$$;

CREATE TRIGGER "Chapter_written" AFTER INSERT OR UPDATE OF text ON "Chapter"
  FOR EACH ROW EXECUTE FUNCTION lore_chapter_written();
