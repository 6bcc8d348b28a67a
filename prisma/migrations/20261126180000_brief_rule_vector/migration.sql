-- The English (stemmed) tsvector of rules' and promises' search text, kept by PostgreSQL itself (not in schema.prisma,
-- as "searchVector"): the brief and the conflict check rank a project's rules by the words they share with a passage,
-- and parsing every rule's text again on each request was the larger part of a brief's time (branch brief).
ALTER TABLE "Entity" ADD COLUMN "relevanceVector" tsvector
  GENERATED ALWAYS AS (CASE WHEN type IN ('rule', 'promise') THEN to_tsvector('english', "searchText") END) STORED;
