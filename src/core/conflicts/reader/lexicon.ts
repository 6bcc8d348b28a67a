// Closed classes of English the reader needs beside the parser: they name kinds of words (titles, kinship, colours,
// verbs that open a report or a thought), never the phrasings a passage may use. Verbs are listed by lemma, so every
// inflection the parser lemmatises is covered.

const set = (words: string) => new Set(words.trim().split(/\s+/));

/** Verbs whose complement is thought, memory, dream or wish: what follows them is not the story's fact. */
export const thinking = set(`
  remember recall recollect dream daydream imagine picture fancy wish hope think believe suppose fear pretend expect
  doubt wonder suspect forget reckon guess assume presume envision envisage visualise visualize hallucinate fantasise
  fantasize want desire pray long yearn
`);

/** Verbs that tag dialogue beside the verbs of saying: '"…," returned Meg', '"…," she retorted'. */
export const speechTags = set('return rejoin retort exclaim add continue begin laugh sigh sob gasp groan cry call say reply answer whisper murmur mutter shout ask');
/** Verbs of saying and writing: their complement ("said that…", "told her how…") is someone's claim. */
export const reporting = set(`
  say tell whisper claim swear insist report rumour rumor write mutter murmur announce explain boast confess admit deny
  promise warn assure allege maintain argue suggest hint declare testify gossip lie read learn shout cry call ask answer
  reply repeat mention note observe remark recount relate narrate scribble hear
`);

/** Words that open a clause that is not asserted: conditions, comparisons with what is not so. */
export const hypothetical = set('if unless though whether lest');

/** Nouns that frame a scene as not the story's present fact: "In her dream…", "In the painting…". */
export const frames = set(`
  dream nightmare vision memory imagination mind fantasy reverie daydream story tale legend song ballad book painting
  portrait photograph picture recording film video hallucination thought letter rumour rumor footage tape diary journal
`);

/**
 * Verbs that make a scene of their complement: what follows them is dreamt or pictured to the end of the sentence,
 * past a semicolon or a new clause ("I dreamed that Will came home; he stood at the door…").
 */
export const sceneMaking = set('dream daydream imagine picture fancy envision envisage visualise visualize hallucinate');
/** Nouns of a scene that is not the story's present fact: after one of them and a colon, the rest of the sentence is its content. */
export const sceneNouns = set('dream nightmare vision reverie daydream hallucination memory fantasy');
/**
 * What breaks into a thought told in the past ("was sitting, picturing the old days, when, suddenly, X was announced"):
 * after a comma, the narration's own event. Lowercased token sequences, commas skipped.
 */
export const interruptions: string[][] = ['when suddenly', 'when all at once', 'when all of a sudden', 'when of a sudden', 'when just then'].map((p) => p.split(' '));

/** Words of the young, in "when I was a girl", "as a boy": the time of a life before the story's now. */
export const youth = set('girl boy child lad lass young younger small little baby infant youngster schoolgirl schoolboy apprentice student');
/** Nouns of a bygone time of life: "in my youth", "in her girlhood". */
export const bygoneTimes = set('youth childhood girlhood boyhood infancy day days time');
/** Counts of time before "ago" or "before": "years ago", "long before". */
export const pastSpans = set('years months weeks days long ages decades summers winters generations');
/** Words that bring the narration back to the story's now after backstory: "Tonight Will was waiting". */
export const nowWords = set('now today tonight nowadays presently');
export const nowPeriods = set('morning evening afternoon night week year time');

/** Negative words that, before a verb in its clause, deny it: "Nobody ever saw Ezra draw", "None of them heard". */
export const negativeSubjects = set('nobody noone none nothing neither never nor');

/** Verbs that show a picture of someone, not the person: "The photograph showed Ezra leaning on a rail". */
export const depicting = set('show depict portray picture paint draw sketch photograph film capture render illustrate');

/** Verbs of noticing someone: the one noticed is who the next sentence goes on about ("finds Volkov… He is…"). */
export const noticing = set('see spot find notice glimpse watch observe discover spy sight');

/** What stands in for a person, dead or absent: "Danny's body", "Osric's portrait". A pronoun after it is about it. */
export const standIns = set('body corpse remains grave coffin casket tomb ghost spirit shade photograph photo picture portrait image statue likeness effigy death funeral burial');
/**
 * Nouns of a time gone that someone owned: "in his father's lifetime", "in my grandfather's day". Pronouns that go on
 * from such a mention, or from "the dead man, X", are about the dead one remembered or their body (checks/dead.ts).
 */
export const lifetimes = set('lifetime life time day days memory');
/**
 * Nouns of the mind and of mourning: one they are "of", "about" or "for" is only thought of, remembered or mourned, and
 * not who a pronoun after them goes on about ("full of sad thoughts about my father, when I saw someone… He was blind").
 */
export const mindNouns = set('thought memory recollection remembrance reminiscence grief mourning sorrow longing yearning dream news tidings');
/**
 * Nouns of an act someone does now: its possessor acts when the act is the subject of a verb the narration asserts
 * ("Beth's kiss woke her", "Mary's voice called from the stairs"), a passive's agent ("made perfect by Beth's kiss")
 * or the time of its clause ("at the captain's knock", "on her father's entrance"; prepositions `actTimes`).
 */
export const actNouns = set(`
  kiss knock tap rap step footstep footfall tread voice laugh laughter whisper call cry shout touch embrace caress greeting
  welcome entrance entry arrival return coming approach answer reply glance nod handshake
`);
/** Words before an act noun that make it one remembered, not done now: "Beth's last kiss", "her parting embrace". */
export const actRemembered = set('last final dying parting farewell former remembered');
/** Prepositions that time a clause by an act: "at the captain's knock", "on her father's entrance", "upon his return". */
export const actTimes = set('at on upon');
/** Verbs of an act done together: the one it is done "with" acts too ("talked with X", "shook hands with X"). */
export const together = set('talk speak converse chat dance walk stroll ride dine sup quarrel argue wrangle dispute play joke laugh shake flirt');
/** Verbs that sense someone without seeing them: "felt Beth by her side" is no company. */
export const sensing = set('feel sense');
/**
 * Someone in company beside a person is there ("with Mrs. Pike beside me", "had Fanny by her side", "George Merry at
 * their head"): prepositions before an object pronoun (`beside me`), or before a possessive and a side (`by her side`).
 */
export const company = { beside: set('beside alongside'), at: set('by at beside'), sides: set('side elbow elbows head heels shoulder arm') };
/** Nouns of pictures and recordings, out of which someone may grin or stare without being there. */
export const images = set('photo photograph picture portrait image painting poster mugshot snapshot frame screen video footage canvas tintype daguerreotype miniature locket');
/** What shows someone without being them: a picture, a statue ("The statue on the quay shows Will…"). */
export const depictions = new Set([...images, ...set('statue bust carving effigy engraving sketch drawing tapestry fresco mural relief likeness icon window')]);
/** The dead at rest: these verbs are no act where the sentence buries someone ("where my mother sleeps under the yew"). */
export const resting = set('sleep slumber repose rest lie wait');
export const burial = set('bury grave churchyard graveyard cemetery tomb vault crypt sepulchre coffin casket mausoleum headstone gravestone yew');
/** The first person plural: a subject "we" in a first-person story counts its narrator among the ones it places. */
export const collective = set('we');
/** Possessive determiners. */
export const possessives = set('his her their its my our your');

/**
 * Rooms, furniture and parts of a dwelling: one who is in them is at the place they belong to ("slept late in our
 * own bedroom at Exeter", "sitting in the drawing-room at Hillingham", "in the apple barrel in the yard of X").
 */
export const rooms = set(`
  room bedroom chamber chambers parlour parlor library study kitchen hall garret attic cellar yard garden bed chair sofa
  couch barrel corner window seat bench pew cabin deck cottage inn lodgings quarters office shop nursery closet pantry
  gallery staircase stair stairs landing porch doorway door hearth fireside fire table desk rooms apartment apartments
  house home cell ward bar taproom stable stables loft park grounds lawn shrubbery orchard paddock
`);
/**
 * Parts of a place out of doors: one who is on or in them is at the place ("stood on the quay at X", "in the market
 * square at X"), as in its rooms.
 */
export const placeParts = set('quay pier wharf jetty dock square street lane market churchyard terrace platform bridge green');
/**
 * Ways to and fro inside a room or a place, read as its preposition ("stumping up and down the parlour of X", "paced up
 * and down the deck at X"): one who goes along them is there, as one who crosses a square is in its town.
 */
export const pacing: string[][] = ['up and down'].map((p) => p.split(' '));
/** Prepositions of a way into a room: "got into the apple barrel in the yard of X" ends in the room, at X. */
export const roomEntries = set('into onto');
/** Determiners that make a room no particular one: "to fix on any house in X", "no chair in X" put nobody there. */
export const unspecific = set('any no every each whichever whatever');
/**
 * Nouns a place name modifies to name a thing, not where anyone is ("on the Dover road", "inside the Yarmouth mail",
 * "done in India ink"): a road named for where it goes, a conveyance for where it runs, goods for where they come from.
 * Only as the noun phrase's last word: "at the Dover coach office" is an office in Dover.
 */
export const placeNamedThings = set('road highway turnpike mail coach stage packet steamer boat train ink muslin shawl china silk lace paper papers');

/** The documents of a novel told in them, whose headings name their writer ("Mina Murray's Journal"). */
export const documents = set('journal diary log letter memorandum memoranda notebook memoir memoirs narrative statement account telegram note notes record');
/**
 * A letter read out inside a first-person story (voice26): a paragraph that opens on a salutation ("Dear Livesey--",
 * "My dear Sir,", "Madam,") is in its writer's voice, not the narrator's, up to a closing ("Yours faithfully,", "Your
 * loving sister"), a paragraph of dialogue (the narrator's scene come back) or the passage's end; after such a break,
 * a paragraph that follows one ending on a colon ("and read straight on:") is the letter again. `opening`: the words a
 * salutation starts with (then at most `words` more, ending on a comma or a dash; "Sir," and "Madam," alone on their
 * line); `closing`: a closing line's first word.
 */
export const letterVoice = {
  opening: set('dear dearest sir madam madame gentlemen honoured honored respected'),
  /** openings that need a name or title after them, and the words after them that make an exclamation ("Dear me,") */
  endearing: set('dear dearest'),
  exclaiming: set('me dear heart knows'),
  words: 4,
  closing: set('yours your ever believe faithfully sincerely truly affectionately respectfully'),
};

/**
 * Nouns of manner after a placing preposition ("sat in silence in the log-house", "waited in haste at X"): the place
 * after them is still the subject's, not the noun's.
 */
export const manners = set('silence haste peace quiet quietness comfort tears state secret secrecy earnest solitude darkness company turn style vain');
/** Nouns for people: a place right after one ("a friend in Dry Fork") is theirs. */
export const people = set('man woman boy girl friend cousin person people fellow stranger lover partner child baby widow widower family');

/** More nouns for a person, of the kind a description names ("a stout little man with black hair"). */
export const personNouns = set('lady gentleman lad lass maid maiden youth creature soul fellow figure dame matron spinster bachelor gentlewoman');

/** Modal auxiliaries that make a verb possible, wished or supposed rather than done. */
export const modals = set('would could might may should must ought shall');
/** Auxiliaries of the future: where someone will be is no placement now ("she will be at home in Exeter"). */
export const future = set("will 'll ’ll shall");

/** Verbs that are no act of the living: a dead subject may have them ("lay in the crypt", "had a sister"). */
export const stative = set('be have die drown perish decease lie rest rot belong resemble deserve remain seem know own lack matter float drift sink hang');

/** Words of a status that means dead. */
export const deathWords = set('dead deceased killed died drowned murdered executed slain perished late fallen departed');
/** Verbs (lemmas) whose subject dies. */
export const deathVerbs = set('die perish drown expire');
/**
 * A verb and the words after it that say its subject dies ("when Miss Crawley quitted the world", "passed away",
 * "descended to the grave"): the verb is no act of the living.
 */
export const dyingPhrases: { verbs: Set<string>; after: string[][] }[] = [
  { verbs: set('quit leave depart'), after: ['the world', 'this world', 'this life', 'life'].map((p) => p.split(' ')) },
  { verbs: set('pass'), after: [['away']] },
  { verbs: set('breathe'), after: ['his last', 'her last'].map((p) => p.split(' ')) },
  { verbs: set('go descend sink'), after: ['to the grave', 'to his grave', 'to her grave', 'to his rest', 'to her rest'].map((p) => p.split(' ')) },
];

/** Adjectives and verbs that say someone is alive. */
export const aliveAdjectives = set('alive living breathing');
export const aliveVerbs = set('live survive');
/** Passives whose subject comes in: "X was announced", "was ushered in" (not "admitted": to a college, long ago). */
export const arrivalPassives = set('announce usher');
/** Nouns of a duty held: "who had charge of them", "has the care of the children" is the act of one alive. */
export const duties = set('charge care command custody keeping management');
/**
 * The dead seen or met as one there: the object of one of these verbs (`verbs`) with a place after it ("saw X at the
 * window", "met X in the lane") or a state only the living are in (`states`: "found X in good health", "X at
 * supper"; `well`: "found X well"). Verbs that find a body (`finding`) count only with a state. Not where the
 * sentence or the two before it have a word of the dead, a grave, a body, a picture, a dream or a ghost (`apart`,
 * beside `deathWords`, `standIns`, `burial`, `depictions`, `sceneNouns`).
 */
export const seenPresent = {
  verbs: set('see meet spy glimpse behold spot notice observe watch find discover encounter overtake greet join'),
  finding: set('find discover'),
  states: set('health spirits tears conversation talk work supper breakfast dinner tea luncheon prayers'),
  well: set('well awake busy'),
  apart: set('apparition phantom spectre specter wraith spectral ghostly bier shroud hearse heaven dreamt dreamed dreaming fancied vision visions'),
};

/** Motion: a clause with one of these moves its subject, so two places in it are a journey, not two at once. */
export const motion = set(`
  go come walk ride run leave arrive return reach travel sail fly drive head move hurry rush cross climb descend enter exit
  wander journey flee follow row march hike stroll stride dash race sprint gallop trek depart proceed advance approach
  escape retreat take bring carry ferry transfer wade swim paddle limp stagger stumble creep crawl slip hasten set get
  make push pull
`);

/**
 * Adverbs that, fronted, put the verb before its subject ("Then came X", "Up rode X", "There sat X", "Presently
 * entered X"), as a fronted place does ("Into the hall came X").
 */
export const fronting = set('then there here thus now presently next soon up down in out away off back forth along round over on thither hither');
/** Verbs of posture and appearing that, as motion does, follow a fronted adverb or place before their subject. */
export const inverting = set('sit stand appear emerge enter follow sound hang kneel');

/** Motion along a way: with "in", "on" or "within" a place ("as I cross the square in Lyon") it happens inside the place. */
export const pathMotion = set('cross walk wander stroll pace hurry run ride drive climb row swim roam rush dash stride march stumble limp creep crawl');
/** Prepositions that put a motion along a way inside their place. */
export const inside = set('in on within inside around about');
/** Words that move a clause off the story's now: "tomorrow he sails", "later she is in Lyon". */
export const timeShifts = set('tomorrow yesterday later soon then next once sometimes often usually every earlier before after afterwards tonight');

/** Prepositions that put someone at a place ("at the gate of X", "in X", "beside X"). */
/** Verbs whose infinitive is a plan or a wish, not where anyone is: "was asked to dine at X", "hoped to be at X". */
export const planning = set('ask invite hope want wish mean intend plan promise expect propose agree resolve decide long desire beg urge prefer arrange engage offer determine press entreat');
/** Prepositions that place someone somewhere: "at X", "in X", "beside X". */
export const placing = set('at in on inside within aboard beside outside upon beneath under behind near by atop amid among');
/** Prepositions of motion or direction: a place after them is a goal or a source, not where someone is. */
export const directional = set('to towards toward into onto from through across past via out');
/** Verbs of looking and pointing: "looked at X" does not put anyone at X. */
export const pointing = set('look stare gaze glance peer point wave shout call squint nod see watch smile aim gesture frown glare wink');

/** Phrases that make two placements simultaneous. Lowercased token sequences. */
export const simultaneity: string[][] = [
  'at the same time', 'at the same moment', 'at the same hour', 'at the same instant', 'at that moment',
  'at that very moment', 'at that same moment', 'at that same hour', 'at that very hour', 'at that instant',
  'at that very instant', 'at that same instant', 'at that same time', 'at that time', 'meanwhile', 'simultaneously',
  'at once', 'also', 'as well', 'even as', 'while', 'in the same moment', 'in that moment', 'both',
].map((p) => p.split(' '));

/**
 * Whether the words hold a phrase that names one moment: "at that hour", "in that instant", "at the very same stroke",
 * "at the selfsame moment" (with "the", a word saying it is the same one is needed: "at the moment" means now).
 */
export function namesOneMoment(words: string[]): boolean {
  for (let i = 0; i + 2 < words.length; i++) {
    if (!momentPrepositions.has(words[i]) || !momentDeterminers.has(words[i + 1])) continue;
    let k = i + 2;
    let same = words[i + 1] !== 'the';
    while (momentModifiers.has(words[k])) {
      same = true;
      k++;
    }
    if (same && momentNouns.has(words[k])) return true;
  }
  return false;
}
const momentPrepositions = set('at in');
const momentDeterminers = set('the that this');
const momentModifiers = set('very same selfsame exact precise identical');
const momentNouns = set('time moment hour instant minute second stroke breath heartbeat');

/** Time words that head a time expression ("at noon", "at vespers"), so the same one twice is the same moment. */
/** Stretches of time a verb's object may be spent somewhere: "had hard times at X", "spent three days in X". */
export const stretches = set('time moment while hour day night evening morning afternoon week fortnight month year summer winter spring autumn season holiday holidays visit stay');
/** Verbs of being somewhere that a speaker says of themself or the one spoken to: "“I am at Longbourn now,”". */
export const stays = set('be stay live remain sit stand lodge dwell wait lie rest reside abide');
/** The subjects of dialogue that name its speaker (`speaker`) or the one spoken to (`listener`). */
export const spokenSubjects: Record<string, 'speaker' | 'listener'> = { i: 'speaker', we: 'speaker', you: 'listener' };
/**
 * Relationship kinds from a character to the place that is their home, read by their first word (`lives_in`,
 * `resides_at`, `dwells_in`, `home_at`): "at home" places the character there.
 */
export const homeKinds = set('lives resides dwells lodges home');
/** Parts of a stretch: "passed the greater part of the night at X", "spent the rest of the day in X". */
export const portions = set('part rest remainder whole most chief greater better bulk half end');
/** Passives that leave their subject where they are put: "being settled in Bath", "was lodged at the inn", "were seated in X". */
export const placedPassives = set('settle establish lodge quarter station house install billet confine imprison detain seat');
/** Nouns of dwelling: "his long residence at Donwell" places the one whose residence it is. */
export const residences = set('residence stay sojourn abode lodging dwelling');
/** Words that make a residence one of the past: "her former residence at X". */
export const formerly = set('former late old past previous');
/**
 * Times of the story's own day: a past-tense clause in a present-tense diary that names one ("Oh, the rest of last
 * night! How I slept at Whitby") tells of the now's stretch, not of backstory. Lowercased token sequences.
 */
export const recentTimes: string[][] = ['last night', 'last evening', 'this morning', 'this afternoon', 'this evening', 'to - day', 'today', 'yesterday'].map((p) => p.split(' '));
export const timeNouns = set(`
  dawn daybreak sunrise morning noon midday afternoon evening dusk sunset twilight nightfall night midnight matins lauds
  prime terce sext none vespers compline
`);
/** Verbs of writing: "Jane writes from Longbourn", "I am writing from Bath" place the writer where they write. */
export const writing = set('write pen scribble');
/**
 * Words before a third person's place in dialogue that make it hearsay, not the speaker's claim: "I hear Darcy is at
 * Pemberley", "they say", "I am told".
 */
export const hearsay = set('hear say tell report rumour rumor understand gather learn');
/** A span reaching the story's now after a perfect: "letters she had written from X since Easter". */
export const untilNow = set('since');
/**
 * A pluperfect stay with a span that runs up to the story's now ("had lived at X these three years", "had been at X
 * more than a year", "had sat in X all day"): the words that open the span, then one of `pastSpans` or `stretches`
 * within two words. Not "for": "had lived at X for years" is as often a stretch of the past.
 */
export const spanOpeners = set('these more above upwards nearly full all');
/** Words that close such a span before the now: "had been at X a week before…", "…until the spring", "…years ago". */
export const spanClosers = set('before until till after ago once formerly then when');
/**
 * A journey's end told in a main clause of the narration places its subject there: a verb of arrival and the
 * prepositions that take its place ("arrived at X", "landed in X"; "" for a direct object: "reached X"), "set foot in
 * X", and a way back ("walked slowly back to X", "returned to X").
 */
export const arrivals: Record<string, string[]> = { arrive: ['at', 'in'], reach: [''], gain: [''], land: ['at', 'in'], return: ['to'] };
/** Nouns after a verb of arrival that make it one: "set foot in X". */
export const arrivalNouns = set('foot');
/** The adverb after a verb of motion that makes its goal the place it came from: "went back to X". */
export const returning = set('back');
/**
 * The one written or sent to at a place is there: "wrote to Ruth at X", "a letter addressed to Nora Hale, at X" (verbs
 * by lemma, and the nouns of what is sent).
 */
export const addressing = set('write address direct send post forward');
export const missives = set('letter note line lines parcel packet message');
/**
 * Words that set a journey's end or a letter at another time than the narration's now: "once reached X", "wrote to
 * Ruth at X years ago". Sequence ("then", "after dark", "at last") keeps the now.
 */
export const elsewhen = set('once ago formerly tomorrow yesterday sometimes often usually ever');
/** The deictic "here" of a speaker: after their own coming to X, "since I have come here" is X. */
export const deictic = set('here');
/**
 * A third person a speaker places by a pronoun ("“…while she is so happy at Randalls, … to Emma”"): the pronouns read,
 * by the gender they take; the one person of that gender the speaker's turn (the paragraph's quotations and tags)
 * names, not the speaker, is the one meant.
 */
export const spokenOfPronouns: Record<string, 'he' | 'she'> = { he: 'he', she: 'she' };
/**
 * Adjectives of how someone is where they are, between a copula and a place in dialogue: "“she is so happy at X”",
 * "“I am quite comfortable at X”" place their subject as "is at X" does.
 */
export const placedStates = set('happy unhappy comfortable uncomfortable settled safe snug well ill content contented miserable lonely busy');
/**
 * Relative pronouns that open a clause whose preposition is left at its end: "the parlour of X that I was in", "the
 * inn which she sat in" place that clause's subject at X.
 */
export const relativeOpeners = set('that which');

/** Nouns of the hereafter and of mourning: a plan in their sentence is no part counted on for the living (partInPlan). */
export const hereafter = set('heaven paradise hereafter angel angels saint saints soul prayer prayers peace eternity');
/**
 * Verbs that settle a plan in a that-clause ("it was suggested that … we should enter the house, whilst X found the
 * lairs", "they agreed that X should row"): one the plan gives a part is counted on as living.
 */
export const settling = set('suggest propose arrange settle agree decide resolve determine plan');
/** Auxiliaries of a part in a plan: "that X should row", "that X was to row". */
export const planAuxes = set("should shall would was were to");
/**
 * Conjunctions of a clause that takes its time from the clause it hangs on: under a perfect ("seemed to have deserted
 * it when Beth left the old home", "When X went away, the light had gone out of the house") it is told from before the
 * story's now, as the perfect is (checks/dead.ts).
 */
export const timedUnderPerfect = set('when whenever after once');
/**
 * Of a dead character, acts no scene of the now can hold: one each time something happened ("whenever X received
 * friends": a habit, as "used to" is) and one done "for the last time" (an act from before the death).
 */
export const deadHabitOpeners = set('whenever');
export const deadLastActs: string[][] = ['for the last time'].map((p) => p.split(' '));
/**
 * Claims in quotations (quote26g): a dead character named at the head of a quoted sentence and bidden to act ('“Pew,
 * run and help Harry,” cried Silver') is spoken to as one there, unless the bidding is what the living ask of the dead
 * (`apostrophe`: "Matthew, rest", "forgive me", "come back", "look down on us", "speak to me").
 */
export const deadBidden = { apostrophe: set('rest sleep forgive bless pray look watch wait speak answer hear listen come forget remember return go lie help save keep') };
/**
 * Openers that take a passage back in time, each a row of slots (a slot's words split by "|", "?" when it may be
 * missing): "That same evening", "On that very night", "Earlier that day", "Meanwhile", "It was three hours before". A
 * passage opening so, within a chapter of a death the canon tells, goes back to before it (checks/dead.ts).
 */
export const rewinds: { words: string[]; optional: boolean }[][] = [
  'on|at|in|during|by? that|the same|very morning|evening|night|day|afternoon|hour|moment|time',
  'earlier that|in|on',
  'meanwhile',
  'in the meantime',
  'it? was? half? a|an|one|two|three|four|five|six|some|several|few few? hours|hour|minutes|minute|days|day before|earlier',
].map((rule) => rule.split(' ').map((slot) => ({ words: slot.replace(/\?$/, '').split('|'), optional: slot.endsWith('?') })));

// Eye and hair colours. A colour names the families it belongs to; two colours agree when they share one. Eye colours
// follow the usual six (brown, blue, grey, green, hazel, amber), so hazel eyes are neither green nor brown ones. Vague
// shades ("dark", "pale") belong to several, so they contradict little.
const colourFamilies: Record<string, string[]> = {
  black: ['black'], jet: ['black'], raven: ['black'], ebony: ['black'], coal: ['black'], inky: ['black'], sable: ['black'],
  brown: ['brown', 'sandy'], chestnut: ['brown', 'red'], mousy: ['brown', 'sandy'], mousey: ['brown', 'sandy'], umber: ['brown'], chocolate: ['brown'],
  tawny: ['brown', 'amber'], hazel: ['hazel'], nut: ['brown'], walnut: ['brown'], coffee: ['brown'],
  auburn: ['red', 'brown'], red: ['red'], ginger: ['red'], copper: ['red'], coppery: ['red'], russet: ['red'], carrot: ['red'],
  titian: ['red'], scarlet: ['red'], crimson: ['red'], rust: ['red'], strawberry: ['red', 'blond'],
  blond: ['blond'], blonde: ['blond'], fair: ['blond'], flaxen: ['blond'], golden: ['blond', 'amber'], gold: ['blond', 'amber'],
  yellow: ['blond'], straw: ['blond'], sandy: ['blond', 'sandy'], honey: ['blond', 'amber'], platinum: ['blond', 'white'],
  wheaten: ['blond'], tow: ['blond'],
  grey: ['grey'], gray: ['grey'], silver: ['grey', 'white'], silvery: ['grey', 'white'], ash: ['grey', 'blond'], ashen: ['grey'],
  steel: ['grey', 'blue'], slate: ['grey', 'blue'], iron: ['grey'], pewter: ['grey'], grizzled: ['grey'], hoary: ['grey', 'white'],
  white: ['white', 'grey'], snowy: ['white'], snow: ['white'],
  blue: ['blue'], azure: ['blue'], cerulean: ['blue'], sapphire: ['blue'], cornflower: ['blue'], cobalt: ['blue'], sky: ['blue'],
  navy: ['blue'], teal: ['blue', 'green'], turquoise: ['blue', 'green'], aquamarine: ['blue', 'green'],
  green: ['green'], emerald: ['green'], jade: ['green'], olive: ['green', 'brown'], moss: ['green'],
  amber: ['amber', 'brown'], violet: ['violet'], purple: ['violet'], lilac: ['violet'], lavender: ['violet'], pink: ['red'],
  // "-ish" and other hues of everyday description: "reddish hair", "greyish eyes", "carroty locks"
  reddish: ['red'], carroty: ['red'], fiery: ['red'], foxy: ['red'], brownish: ['brown', 'sandy'], dun: ['brown'],
  greyish: ['grey'], grayish: ['grey'], grizzly: ['grey'], hoar: ['white', 'grey'], bluish: ['blue'], blueish: ['blue'],
  greenish: ['green'], yellowish: ['blond'], blackish: ['black'], jetty: ['black'], dusky: ['black', 'brown'],
  whitish: ['white', 'grey'],
  dark: ['black', 'brown', 'hazel', 'red', 'grey', 'blue', 'green', 'violet'],
  pale: ['blue', 'grey', 'green', 'blond', 'white', 'amber', 'hazel', 'brown'],
  light: ['blue', 'grey', 'green', 'blond', 'white', 'amber', 'hazel', 'brown'],
  bright: ['blue', 'grey', 'green', 'blond', 'white', 'amber', 'hazel', 'brown', 'red', 'black', 'violet'],
  deep: ['blue', 'grey', 'green', 'brown', 'red', 'black', 'violet', 'hazel', 'amber'],
};
export const colours = new Set(Object.keys(colourFamilies));
/** Colours that are vague shades: never a statement on their own. */
export const shades = set('dark pale light bright deep');
/**
 * A shade the canon gives alone ("her eyes are dark", "light hair") means the colours a reader takes it for: dark eyes
 * are black, brown or hazel, not blue; light hair is fair. A statement with a shade of its own ("dark blue eyes",
 * "pale blue eyes") is read by the shades' wide families, as before.
 */
export const loneShades: Record<string, Record<string, string[]>> = {
  eyes: { dark: ['black', 'brown', 'hazel'], light: ['blue', 'grey', 'green', 'hazel', 'amber'], pale: ['blue', 'grey', 'green'] },
  hair: { dark: ['black', 'brown'], light: ['blond', 'sandy', 'white', 'grey'], pale: ['blond', 'sandy', 'white', 'grey'] },
  eyebrows: { dark: ['black', 'brown'], light: ['blond', 'sandy', 'white', 'grey'], pale: ['blond', 'sandy', 'white', 'grey'] },
};
/** Red or pink eyes are sore eyes ("red from weeping"), not a colour, unless the canon says they are red. */
export const soreEyeColours = set('red pink scarlet crimson');

export function colourFamiliesOf(words: string[]): Set<string> {
  return new Set(words.flatMap((w) => colourFamilies[w] ?? []));
}

/** The nouns an eye or hair colour is stated of. */
export type ColourAttribute = 'eyes' | 'hair' | 'eyebrows';
export const attributeNouns: Record<string, ColourAttribute> = {
  eye: 'eyes', eyes: 'eyes', hair: 'hair', hairs: 'hair', locks: 'hair', curls: 'hair', tresses: 'hair', mane: 'hair',
  braid: 'hair', braids: 'hair', plait: 'hair', plaits: 'hair', ringlets: 'hair',
  eyebrows: 'eyebrows', eyebrow: 'eyebrows', brows: 'eyebrows',
};
/** Feelings eyes may blaze or flash with: "blue with passion" keeps its colour, unlike "grey with dust". */
export const feelings = set('passion rage fury anger wrath hate hatred malice desire lust joy delight excitement triumph menace cruelty scorn contempt mischief merriment amusement laughter eagerness hunger');
/** Marks that open an apposition: "Morgan, an old sailor", "Morgan--an old sailor--". */
export const apposing = new Set([',', '--', '—', '–']);
/** "-eyed", "-haired", "-curled" compounds ("little black-curled Eppie"). */
export const attributeCompounds: Record<string, ColourAttribute> = { eyed: 'eyes', haired: 'hair', browed: 'eyebrows', curled: 'hair' };

/** Verbs that link an attribute to its colour: "her eyes were blue", "his hair shone gold". */
export const linking = set('be look seem appear shine gleam glitter glint burn blaze flame flare smoulder smolder flash sparkle glow show stay remain');
/** Verbs of change: "her hair turned white" is an event, not a contradiction of the colour it had. */
export const changing = set('turn go grow become fade darken lighten dye whiten grey gray bleach');

/**
 * How words around an age widen it into a range: `under` N is below N, `atMost` N is N or below, `over` N above N,
 * `atLeast` N is N or above, `about` N is N give or take a tenth (two years at least), `nearly` N is up to N from that
 * far below, `justOver` N is from N to that far above. Phrases before the number, lowercased token sequences.
 */
export type AgeRange = 'under' | 'atMost' | 'over' | 'atLeast' | 'about' | 'nearly' | 'justOver';
const rangePhrases = (range: AgeRange, phrases: string) => phrases.split(',').map((p) => [p.trim().split(/\s+/), range] as [string[], AgeRange]);
export const ageRangesBefore: [string[], AgeRange][] = [
  ...rangePhrases('under', 'not yet, under, not quite, less than, short of, not full'),
  ...rangePhrases('atMost', 'not above, not over, not more than, no more than, not past, at most, at the most, not older than'),
  ...rangePhrases('over', 'over, past, above, more than, upwards of, upward of, older than, turned of'),
  ...rangePhrases('atLeast', 'not under, not less than, no less than, at least, full, fully, a full, not younger than'),
  ...rangePhrases('about', 'about, around, some, roughly, perhaps, maybe, near, nigh, close on, close to, something like, somewhere about, somewhere near, approximately, round about, getting on for, in the neighbourhood of'),
  ...rangePhrases('nearly', 'nearly, almost, close upon, well nigh, going on, going on for, rising, barely, hardly, scarcely, scarce, all but'),
  ...rangePhrases('justOver', 'little more than, a little more than, a little over, little over, just over, just past, scarcely more than, hardly more than, barely more than, little above, not much more than, not much above, not much over, a trifle over, some little over'),
].sort((a, b) => b[0].length - a[0].length);
/** Phrases after the number that widen it: "fifteen or so", "forty odd", "sixty or more". */
export const ageRangesAfter: [string[], AgeRange][] = [
  ...rangePhrases('about', 'or so, or thereabouts, or about, or near it, odd, - odd, or thereabout, at a guess'),
  ...rangePhrases('atLeast', 'or more, and more, and upwards, and upward, or upwards, at least'),
  ...rangePhrases('atMost', 'at most, or less, or under, at the most'),
].sort((a, b) => b[0].length - a[0].length);
/** Verbs that, like "turn", give the age reached: "X turned twenty", "X had reached twenty", "X attained thirty". */
export const ageReaching = set('turn reach attain');
/** Words that give an age in a case note or a list, as "aged" does: "R. M. Renfield, ætat 39". */
export const ageLabels = set('aged age ætat aetat æt aet');
/** What after an age tells it of the past ("was six when…"). */
export const pastAge = set('when then before once until till');
/**
 * A year of life told after a name ("Godfrey Cass in this six-and-thirtieth year of his life", "Nell, in her
 * nineteenth year,"): the determiners that, besides a possessive, may open it when the possessive follows in its tail,
 * and the nouns of that tail ("of his life", "of her age").
 */
export const lifeYearDeterminers = set('this the');
export const lifeYearNouns = set('life age');
/**
 * A perfect participle set off after its subject's clause that tells an age reached ("exclaimed Meg, …, having just
 * reached twenty", "X was older than Y: having perhaps numbered eight-and-thirty winters"): the age is the subject's,
 * at least that now. `reaching` verbs take a bare number; `counting` ones only years counted ("winters", "years").
 */
export const agePerfectParticiples = { reaching: set('reached attained turned'), counting: set('numbered seen lived counted') };
/** What sets such a participle off from the clause before it. */
export const agePerfectOpeners = set(', : ; -- —');
/**
 * Claims in quotations (quote26g): what a speaker says of a character the quotation names is read only in the present
 * (`now`: "Ruby is so fair", "Oliver is eleven", "she has black hair"), and never in a sentence that hedges it (`hedges`:
 * "I suppose", "they say", "perhaps", "I heard"): a speaker may be wrong, so only the most direct forms count.
 */
export const quotedClaims = {
  now: set("is 's ’s has are have"),
  hedges: set('suppose think believe fancy reckon guess hear say seem perhaps maybe possibly probably wonder doubt hope wish'),
};

// Titles, by family. Ranks and offices of one family exclude one another; forms of address agree with the offices
// they are used for (a prior is "Father", an abbess "Mother"); honorifics (Mr, Ms…) agree with everything.
const titleFamilies: Record<string, string> = {};
const addFamily = (family: string, words: string) => {
  for (const w of words.trim().split(/\s+/)) titleFamilies[w.replaceAll('_', ' ')] = family;
};
addFamily('military', `
  private corporal lance_corporal sergeant staff_sergeant master_sergeant sergeant_major lieutenant second_lieutenant
  first_lieutenant captain major colonel lieutenant_colonel brigadier general lieutenant_general major_general marshal
  field_marshal ensign commander lieutenant_commander commodore admiral vice_admiral rear_admiral midshipman cadet
  warrant_officer petty_officer chief_petty_officer trooper gunner bombardier centurion legate tribune quartermaster
  adjutant constable_general airman`);
addFamily('religious', `
  abbess abbot prior prioress bishop archbishop archdeacon deacon deaconess cardinal pope priest priestess vicar rector
  curate chaplain canon monk nun friar novice reverend pastor rabbi imam cantor preacher minister parson patriarch
  metropolitan primate prelate chaplain_general high_priest high_priestess mother_superior oracle acolyte inquisitor
  confessor sacristan`);
addFamily('academic', 'professor doctor dean lecturer tutor chancellor provost reader fellow scholar maester headmaster headmistress');
addFamily('nobility', `
  king queen prince princess duke duchess archduke archduchess marquess marquis marchioness earl count countess viscount
  viscountess baron baroness baronet emperor empress tsar tsarina czar sultan sultana khan regent chieftain laird thane
  knight squire dauphin infanta grand_duke grand_duchess pharaoh shah maharaja rani raja`);
addFamily('office', `
  mayor alderman magistrate judge justice sheriff deputy undersheriff marshal constable warden governor minister senator councillor councilor
  ambassador consul steward bailiff reeve inspector detective superintendent commissioner chancellor president premier
  chairman chairwoman director nurse matron sister_in_charge surgeon physician coroner harbourmaster harbormaster
  chief_engineer engineer pilot navigator helmsman bosun boatswain`);
// Forms of address: each agrees with the titles it is used for.
const addressAgrees: Record<string, string[]> = {
  father: ['priest', 'prior', 'abbot', 'vicar', 'rector', 'curate', 'chaplain', 'friar', 'monk', 'canon', 'confessor', 'parson', 'pastor', 'minister', 'reverend', 'dean', 'bishop', 'archbishop', 'cardinal', 'pope', 'patriarch'],
  brother: ['monk', 'friar', 'prior', 'abbot', 'novice', 'canon', 'acolyte', 'deacon', 'sacristan'],
  mother: ['abbess', 'prioress', 'mother superior', 'nun', 'priestess', 'high priestess'],
  sister: ['nun', 'prioress', 'abbess', 'novice', 'deaconess', 'nurse', 'matron', 'priestess'],
  reverend: ['priest', 'prior', 'abbot', 'vicar', 'rector', 'curate', 'chaplain', 'bishop', 'archbishop', 'minister', 'pastor', 'parson', 'canon', 'dean', 'deacon', 'abbess', 'prioress', 'archdeacon'],
  lord: ['duke', 'marquess', 'marquis', 'earl', 'count', 'viscount', 'baron', 'baronet', 'king', 'prince', 'laird', 'thane', 'archduke', 'grand duke', 'bishop', 'archbishop', 'judge', 'justice', 'chancellor', 'mayor'],
  lady: ['duchess', 'marchioness', 'countess', 'viscountess', 'baroness', 'queen', 'princess', 'archduchess', 'grand duchess', 'dame'],
  sir: ['knight', 'baronet'],
  dame: ['lady'],
  doctor: ['professor', 'physician', 'surgeon', 'coroner', 'dean', 'lecturer', 'maester', 'fellow', 'reader'],
  // A ship's master is her captain ("Alexander Smollett, master;").
  master: ['maester', 'headmaster', 'squire', 'steward', 'knight', 'boatswain', 'bosun', 'harbourmaster', 'harbormaster', 'captain', 'skipper'],
  chief: ['chief engineer', 'chief petty officer', 'chieftain', 'commissioner', 'superintendent'],
  captain: ['pilot'],
};
for (const word of Object.keys(addressAgrees)) titleFamilies[word] ??= 'address';
/** Honorifics: they carry no office, so they never contradict one. */
export const honorifics = set('mr mrs miss ms mx madam madame mister mistress monsieur mademoiselle herr frau señor señora don dona goodman goodwife goody');
const abbreviations: Record<string, string> = {
  dr: 'doctor', prof: 'professor', lt: 'lieutenant', sgt: 'sergeant', capt: 'captain', cpt: 'captain', cmdr: 'commander',
  cdr: 'commander', col: 'colonel', gen: 'general', maj: 'major', adm: 'admiral', cpl: 'corporal', pvt: 'private',
  rev: 'reverend', fr: 'father', br: 'brother', sr: 'sister', insp: 'inspector', det: 'detective', supt: 'superintendent',
  gov: 'governor', sen: 'senator', pres: 'president', ens: 'ensign', doc: 'doctor', dep: 'deputy',
  // spellings of speech: "Cap'n Flint" is "Captain Flint"
  "cap'n": 'captain', 'cap’n': 'captain', capn: 'captain', sarge: 'sergeant', lieut: 'lieutenant',
};

/**
 * A name led by a title, spelt with the title's other spellings ("Cap'n Flint" → "Captain Flint", "Capt Flint"…), so
 * that two entities whose names differ only in that spelling (a parrot called after a dead captain) share the name,
 * which then names neither for sure.
 */
export function titleSpellings(name: string): string[] {
  const [first, ...rest] = name.trim().split(/\s+/);
  if (!first || rest.length === 0) return [];
  const word = first.toLowerCase().replace(/\.$/, '');
  const title = abbreviations[word] ?? word;
  // Forms of address ("Father", "Sister") stay as written: they are kin words too.
  if (!titleFamilies[title] || titleFamilies[title] === 'address') return [];
  const spellings = [title, ...Object.keys(abbreviations).filter((a) => abbreviations[a] === title)].filter((w) => w !== word);
  return spellings.map((w) => [w.charAt(0).toUpperCase() + w.slice(1), ...rest].join(' '));
}

/** A title as the lexicon knows it ("Dr." → "doctor"), or undefined when the words are no title. */
export function normaliseTitle(words: string[]): string | undefined {
  const joined = words.map((w) => w.toLowerCase().replace(/\.$/, '')).map((w) => abbreviations[w] ?? w).join(' ');
  if (honorifics.has(joined)) return joined;
  return titleFamilies[joined] ? joined : undefined;
}

export const isHonorific = (title: string) => honorifics.has(title);
export const titleFamily = (title: string) => titleFamilies[title];
/** The longest number of words a title of the lexicon has. */
export const longestTitle = Math.max(...Object.keys(titleFamilies).map((t) => t.split(' ').length));

/**
 * Whether a title the passage gives agrees with the titles the canon holds (its title, and those its names carry).
 * When the canon holds an office, the office decides: a form of address in an alias ("Mother Hilde") does not make
 * every office it is used for agree. A form of address the passage gives agrees with the offices it is used for.
 */
export function titlesAgree(stated: string, canon: string[]): boolean {
  if (isHonorific(stated)) return true;
  const held = canon.map((c) => normaliseTitle(c.split(/[\s_]+/)) ?? c.toLowerCase()).filter((h) => !isHonorific(h));
  if (held.length === 0) return true;
  const offices = held.filter((h) => titleFamilies[h] !== 'address');
  const decisive = offices.length > 0 ? offices : held;
  return decisive.some((h) => {
    if (h === stated || h.split(' ').includes(stated) || stated.split(' ').includes(h)) return true;
    return Boolean(addressAgrees[stated]?.includes(h) || addressAgrees[h]?.includes(stated));
  });
}

// Kinship. A kin word names a role (what the named one is to the possessor) and, for gendered words, a gender. Beside
// the roles of blood and marriage, the roles a bond makes of them: step-, half-, foster or adoptive, -in-law, a
// betrothal, a guardian and a ward.
export type KinRole =
  | 'parent' | 'child' | 'sibling' | 'spouse' | 'grandparent' | 'grandchild' | 'auncle' | 'nibling' | 'cousin'
  | 'parent-in-law' | 'child-in-law' | 'sibling-in-law' | 'step-parent' | 'step-child' | 'step-sibling' | 'half-sibling'
  | 'foster-parent' | 'foster-child' | 'betrothed' | 'guardian' | 'ward';
export type Gender = 'he' | 'she';
/** The roles of blood and marriage: the ones a canon keeping someone's family holds (what the closed-world reading counts). */
export const closeKin = new Set<KinRole>(['parent', 'child', 'sibling', 'spouse', 'grandparent', 'grandchild', 'auncle', 'nibling', 'cousin']);
const kinWords: Record<string, [KinRole, Gender | undefined]> = {
  father: ['parent', 'he'], mother: ['parent', 'she'], parent: ['parent', undefined], dad: ['parent', 'he'], daddy: ['parent', 'he'],
  papa: ['parent', 'he'], pa: ['parent', 'he'], mum: ['parent', 'she'], mom: ['parent', 'she'], mama: ['parent', 'she'],
  mamma: ['parent', 'she'], mummy: ['parent', 'she'], mommy: ['parent', 'she'], ma: ['parent', 'she'],
  son: ['child', 'he'], daughter: ['child', 'she'], child: ['child', undefined], boy: ['child', 'he'], girl: ['child', 'she'],
  brother: ['sibling', 'he'], sister: ['sibling', 'she'], sibling: ['sibling', undefined], twin: ['sibling', undefined],
  husband: ['spouse', 'he'], wife: ['spouse', 'she'], spouse: ['spouse', undefined], widow: ['spouse', 'she'],
  widower: ['spouse', 'he'], consort: ['spouse', undefined],
  grandfather: ['grandparent', 'he'], grandmother: ['grandparent', 'she'], grandparent: ['grandparent', undefined],
  grandpa: ['grandparent', 'he'], grandma: ['grandparent', 'she'], granny: ['grandparent', 'she'], gran: ['grandparent', 'she'],
  nan: ['grandparent', 'she'], nana: ['grandparent', 'she'], grandsire: ['grandparent', 'he'], granddad: ['grandparent', 'he'],
  grandson: ['grandchild', 'he'], granddaughter: ['grandchild', 'she'], grandchild: ['grandchild', undefined],
  uncle: ['auncle', 'he'], aunt: ['auncle', 'she'], auntie: ['auncle', 'she'], aunty: ['auncle', 'she'],
  nephew: ['nibling', 'he'], niece: ['nibling', 'she'], cousin: ['cousin', undefined],
  stepfather: ['step-parent', 'he'], stepmother: ['step-parent', 'she'], stepparent: ['step-parent', undefined],
  stepson: ['step-child', 'he'], stepdaughter: ['step-child', 'she'], stepchild: ['step-child', undefined],
  stepbrother: ['step-sibling', 'he'], stepsister: ['step-sibling', 'she'],
  fiancé: ['betrothed', 'he'], fiance: ['betrothed', 'he'], fiancée: ['betrothed', 'she'], fiancee: ['betrothed', 'she'],
  betrothed: ['betrothed', undefined],
};
export const kinWord = (word: string): [KinRole, Gender | undefined] | undefined => kinWords[word.toLowerCase()];
/**
 * The role a bond makes of a plain kin role, for kin words in prose ("step-father", "half-brother", "brother-in-law",
 * "adoptive mother") and for relationship kinds (step_father_of, half_sister_of, brother_in_law_of). A bond without a
 * row for the role, or `null`, names no kinship the graph holds as such (a godfather; a "half-uncle").
 */
export const kinBonds: Record<string, Partial<Record<KinRole, KinRole>> | null> = {
  step: { parent: 'step-parent', child: 'step-child', sibling: 'step-sibling' },
  half: { sibling: 'half-sibling' },
  'in law': { parent: 'parent-in-law', child: 'child-in-law', sibling: 'sibling-in-law' },
  foster: { parent: 'foster-parent', child: 'foster-child' },
  adoptive: { parent: 'foster-parent', child: 'foster-child' },
  adopted: { parent: 'foster-parent', child: 'foster-child' },
  god: null,
};
/** Words before a kin word that name its bond ("her step-father", "his half-brother"): every bond but "in law". */
export const kinPrefixes = new Set(Object.keys(kinBonds).filter((b) => !b.includes(' ')));
/**
 * Relationship kinds of one word for a role no kin word names alone, read "<from> <kind> <to>": engaged_to,
 * guardian_of. A kind's first kin word is read otherwise (reader/kin.ts).
 */
export const kinKinds: Record<string, [KinRole, Gender | undefined]> = {
  engaged: ['betrothed', undefined], betrothed: ['betrothed', undefined], affianced: ['betrothed', undefined],
  fiance: ['betrothed', 'he'], fiancee: ['betrothed', 'she'], intended: ['betrothed', undefined],
  guardian: ['guardian', undefined], ward: ['ward', undefined],
};
/**
 * Roles that agree with another in prose, both ways: a half-brother is a brother, a stepfather or an adoptive mother is
 * called father or mother. An in-law is not a brother or a father: "Joe, Pip's father" contradicts a brother-in-law.
 */
const looseKin: [KinRole, KinRole][] = [
  ['half-sibling', 'sibling'], ['step-sibling', 'sibling'], ['step-parent', 'parent'], ['step-child', 'child'],
  ['foster-parent', 'parent'], ['foster-child', 'child'], ['betrothed', 'spouse'],
];
/** Whether a kin word of role `said` fits a relative the graph holds in role `held`. */
export const kinAgrees = (said: KinRole, held: KinRole) => said === held || looseKin.some(([a, b]) => (a === said && b === held) || (a === held && b === said));
/** Roles a child calls a relative by, as a name ("Mother came in", "I told Father"). */
export const calledByKin = new Set<KinRole>(['parent', 'grandparent', 'auncle']);
/** The kin words of those roles. */
export const kinNames = Object.keys(kinWords).filter((w) => calledByKin.has(kinWords[w][0]));
/**
 * Kin words also given as courtesy to someone who is no relative (a guardian, a family friend, one passed off as a
 * relative: "my Uncle Provis", "Aunt March" to the neighbours' children): they contradict a graph that relates the two
 * otherwise by kinship, never one that relates them by something else.
 */
export const courtesyKin = set('uncle aunt auntie aunty');
/**
 * Speech-tag verbs whose object is the one spoken to, after a speaker before them ("June told Sam", "she begged
 * Jo"): "your father" in their quote is that one's father. Other tags name the one spoken to with "to" ("said she to
 * Jo", "Elizabeth said to Colonel Fitzwilliam").
 */
export const addressingTags = set('tell ask bid beg implore entreat urge warn remind assure');
/**
 * A letter's salutation and closing state kin between its writer and the one it is written to: "My dear brother,",
 * "Dearest Jo,", "Your affectionate sister, Amy". Words of affection before the kin word or the name.
 */
export const letterAffection = set('dear dearest beloved affectionate loving devoted faithful fond own ever dutiful obedient grateful attached sincere true');
/** Words that qualify a kin word without changing its role: "my elder brother", "her baby sister". */
// "great" and "grand" ("great-aunt", "grand-nephew"), "first" and "second" ("second cousin") keep the role.
export const kinModifiers = set('elder eldest older oldest younger youngest only little big baby late dear poor own beloved great grand first second third distant');
/** The role seen from the other end: X is Y's parent ⇔ Y is X's child. */
export const inverseRole: Record<KinRole, KinRole> = {
  parent: 'child', child: 'parent', sibling: 'sibling', spouse: 'spouse', grandparent: 'grandchild', grandchild: 'grandparent',
  auncle: 'nibling', nibling: 'auncle', cousin: 'cousin', 'parent-in-law': 'child-in-law', 'child-in-law': 'parent-in-law',
  'sibling-in-law': 'sibling-in-law', 'step-parent': 'step-child', 'step-child': 'step-parent', 'step-sibling': 'step-sibling',
  'half-sibling': 'half-sibling', 'foster-parent': 'foster-child', 'foster-child': 'foster-parent', betrothed: 'betrothed',
  guardian: 'ward', ward: 'guardian',
};
/**
 * Words that state a marriage before "to" and the one wed: "Biddy was married to Orlick", "“I am married to Orlick!”"
 * (the speaker). A marriage that had been ("had been married to") is not read.
 */
export const marriageWords = set('married wedded wed');
/**
 * A rank before a kin word ("her youngest daughter, Kitty", "his elder brother Tom", "her only brother, Sam"), checked
 * only where the canon gives the ages it needs: a superlative among the possessor's relatives of that role (and gender),
 * a comparative of a sibling against the possessor; "only" against a second relative of that role and gender.
 */
export const kinRanks: Record<string, 'least' | 'most' | 'younger' | 'older' | 'only'> = {
  youngest: 'least', eldest: 'most', oldest: 'most', younger: 'younger', elder: 'older', older: 'older', only: 'only',
};
/**
 * Brackets that set a named possessor's kin word beside the name before them, as a comma does ("Felix, Lena's
 * uncle,"): "Felix Marsh (Lena's uncle, though …)". Not after a pronoun's kin, and not dashes, which break off speech
 * as often as they set a phrase beside a name.
 */
export const kinParentheses = new Set(['(', '[']);
/**
 * A kin word with a name right after it ("his wife Bessy") names that relative even in a negated clause ("had never
 * shown it to his wife Bessy"), unless one of these words denies the phrase itself ("not his wife Bessy but…").
 */
export const kinNamingDenials = set('not never no nor neither');

/**
 * A subject or possessive pronoun whose sentence and the two before name nobody it fits is carried back to the
 * paragraph's topic ("Ada came up the lane. … The dusk fell. … Her hair was grey"): the one character of its gender
 * the paragraph has named as a subject, within `sentences` sentences, when no break below stands between them.
 */
export const pronounCarry = {
  /** how many sentences back the topic may stand */
  sentences: 8,
  /** the pronouns carried, by how they stand */
  roles: new Set(['nominative', 'possessive']),
  /** what stops it: a paragraph break, a quotation between the topic and the pronoun (a dialogue turn, another
   * speaker), a pronoun of the same gender left unresolved between them (someone the passage does not name), a
   * character of the same gender named between them (two in play), "I" in a narration whose narrator is unknown,
   * someone unnamed brought in between them ("A man ran out of the stable", "my uncle") who may be of that gender */
  breaks: new Set(['paragraph', 'quotation', 'unresolved', 'rival', 'unknownI', 'newcomer']),
  /** a subject pronoun the window could not resolve is someone unnamed, whom the next sentence's pronoun goes on about */
  keepsUnnamed: true,
  /** the words before a person noun or a kin word that bring someone new in ("the latter lady" may be another than the topic) */
  newcomers: set('a an another some my our latter former'),
};

/**
 * A passage checked with its chapter whose "he" or "she" (subject or possessive) has no character of its gender named
 * before it in the passage takes the one named just before the passage in the chapter's stored text
 * (conflicts/chapterBefore.ts), under the breaks of `pronounCarry`. How the passage is found there and how far back
 * the chapter is read.
 */
export const chapterAntecedent = {
  /** sentences read back from the passage's start, and paragraph breaks crossed (1: the paragraph before it) */
  sentences: 8,
  paragraphs: 1,
  /**
   * across a paragraph break, how many sentences back from the pronoun's the mention may stand: the reader's own window
   * (its sentence and the two before); within the passage's paragraph, `pronounCarry.sentences`
   */
  acrossParagraph: 2,
  /** a passage not found verbatim: its opening words looked for in runs of `run` words (an edit spoils few runs) */
  openingWords: 40,
  run: 4,
  /** runs that must agree on where the passage starts, and how far (in words) they may drift apart and still agree */
  agreeing: 2,
  drift: 3,
  /** the pronouns a passage may leave open (outside quotations), for which the chapter before it is read */
  open: set('he she his her him hers himself herself'),
  /**
   * when no one named before the passage may take it (a rival named there too), the subject of the main clause of the
   * sentence just before the passage, named or a pronoun resolved there, with nobody its pronouns fit referred to after
   * it: the reader's own "most recent subject", for a pronoun of the passage's first sentence only (before26g)
   */
  recentSubject: true,
};

/**
 * Where a named mention the resolver would take for a pronoun's antecedent is no one the passage is about, so that the
 * pronoun is left unresolved rather than given to them: a name denied ("It was not Wildfire; … he discerned", "the
 * rider was not Dunstan") or compared with ("taller than Godfrey", "like Eliza"); and an animal the canon describes as
 * one (`animalNouns`) while a person the pronoun may fit is named beside it.
 */
export const antecedentDoubts = {
  /** the word just before a name that denies it */
  denying: set('not'),
  /** the word just before a name that compares with it (a preposition or conjunction, not the verb "like") */
  comparing: set('than like unlike'),
  /**
   * someone unnamed brought in between the antecedent and the pronoun who may take it ("married to a husband younger
   * than herself, who…; for he was…"): the words that bring them in, before a person noun or kin word of the pronoun's
   * gender (`pronounCarry.newcomers`); not a description of a name ("Joe was a kind man", "Joe, a smith,", "as a boy")
   */
  newcomer: true,
  /** the word before the newcomer's article that makes it a description, not someone new */
  describing: set('be is was were am are been being become became becomes seem seemed seems as like than such what'),
  /** a name the canon gives two characters whose pronouns fit ("Sir Pitt Crawley", father and son) said between: either may take it */
  sharedName: true,
  /** adjectives before a kin word that make it another relative than the graph's one of that role ("my new father", "her future husband") */
  otherKin: set('new future former prospective intended second third'),
  /** a possessive opening a speech tag ('"…," said her father') goes to no one while two characters it fits stand in its window */
  speechTagPossessive: true,
  /** the word before a name that says its bearer is dead ("the dead O'Brien", "the late Miss Crawley"): no pronoun's antecedent */
  deceased: set('dead late'),
};

/** Gendered words in names, titles and relationship kinds: "Lady Vell", "Brother Cael", "mother_of". */
const gendered: Record<string, Gender> = {};
for (const [word, [, gender]] of Object.entries(kinWords)) if (gender) gendered[word] = gender;
for (const w of 'he him his himself man boy lord king prince duke earl count baron sir mr mister abbot monk friar emperor tsar sultan baronet marquess marquis viscount archduke laird lad gentleman master headmaster widower husband'.split(' ')) gendered[w] = 'he';
for (const w of 'she her hers herself woman girl lady queen princess duchess countess baroness dame mrs miss ms madam madame abbess prioress nun empress tsarina sultana marchioness viscountess archduchess lass gentlewoman mistress headmistress priestess deaconess matron widow wife goodwife'.split(' ')) gendered[w] = 'she';
export const genderOfWord = (word: string): Gender | undefined => gendered[word.toLowerCase()];
/**
 * Nouns of a person of one gender that a canon's description of a character ends on ("Leonards, a Southampton man",
 * "Dixon is an old servant woman", "a drunken fellow"), beside the gendered words above; and the endings of compounds
 * ("clergyman", "washerwoman"), but for the words that only end so.
 */
export const describedGender: Record<string, Gender> = Object.fromEntries([
  ...'fellow chap bachelor bridegroom hero'.split(' ').map((w) => [w, 'he']),
  ...'maid maiden spinster bride heroine actress seamstress governess waitress hostess heiress landlady laundress schoolmistress poetess authoress songstress'.split(' ').map((w) => [w, 'she']),
]);
export const genderedEndings: [string, Gender][] = [['woman', 'she'], ['man', 'he']];
export const notGenderedEndings = set('human german roman norman talisman shaman ottoman caiman dolman');
/**
 * Nouns of an animal that a canon's description of a character ends on ("Wildfire is Godfrey's hunter, the best
 * horse he ever had", "Cap'n Rowe is Eleanor's terrier"): its pronouns are a person's only when no person fits
 * (references.ts, `antecedentDoubts`).
 */
export const animalNouns = set('horse mare stallion gelding pony colt filly mule donkey dog hound spaniel terrier mastiff bulldog collie puppy cat kitten parrot canary goat');

/** Relationship kinds that place one location inside another, read "from <kind> to": part_of, located_in… */
export const containedIn = set('part in inside within located lies sits contained belongs ward wing quarter district');
export const contains = set('contains includes holds houses encloses');
