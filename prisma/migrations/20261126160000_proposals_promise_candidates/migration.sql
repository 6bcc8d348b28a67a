-- Proposals carry promises' ledger lines (issue 27): a candidate of kind promise holds a change to a known promise's
-- line (setup, payoff, involved entities), written to the ledger when it is approved.
ALTER TYPE "CandidateKind" ADD VALUE 'promise';
