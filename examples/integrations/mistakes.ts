/**
 * The switches that turn the reference integration into a variant with one mistake (issue 40,
 * CONTRACT §21). Every switch is off in the reference; a variant turns exactly one on. The
 * client and the receiver read them where the behaviour differs, so a variant is the reference
 * with one line of behaviour changed, never a copy.
 */
export interface Mistakes {
  /** Spec §5.2: signs with the `sk_*` key instead of the `enc_*` key. */
  signWithSecretKey: boolean;
  /** Spec §5.2, §8: `svc-timestamp` in seconds instead of milliseconds. */
  timestampInSeconds: boolean;
  /**
   * Spec §5.2: signs `JSON.stringify(payload)` while the HTTP layer sends its own serialisation
   * of the same object (`{"a": 1}`, as Python's json.dumps writes it): the bytes differ.
   */
  signReserialisedBody: boolean;
  /** Spec §4.2 rule 3, §9: a network list compiled into the code instead of read at run time. */
  hardCodedNetworks: boolean;
  /** Spec §4.2 rule 1: no account lookup before an offramp; the name the customer typed is sent. */
  skipAccountLookup: boolean;
  /** Spec §2.5, §8: after "quote expired", sends the same create (same quote) once more before quoting again. */
  retryExpiredQuote: boolean;
  /** Spec §7: after a 422, sends the same body once more before fixing it. */
  resendValidationError: boolean;
  /** CONTRACT §3: after a 429, retries at once instead of waiting `Retry-After`. */
  ignoreRetryAfter: boolean;
  /** CONTRACT §12: a fresh `merchant_reference` on each retry of a create. */
  newMerchantReferenceOnRetry: boolean;
  /** Spec §8: polls GET order every 100 ms instead of at most once a second. */
  pollFast: boolean;
  /** Spec §5: uses the public key for a quote (a "rate preview"), then the secret key on the 403. */
  publicKeyOnQuote: boolean;
  /** Spec §6.4: the receiver verifies `JSON.stringify(JSON.parse(body))`, not the raw bytes. */
  verifyParsedJson: boolean;
  /** Spec §6.5 rule 3: the receiver does not check the delivery timestamp's age. */
  acceptStaleTimestamps: boolean;
  /** Spec §6.5 rule 4: the receiver answers 409 to a delivery it has already handled. */
  rejectDuplicates: boolean;
  /** CONTRACT §6: the receiver answers 409 to an event older than the order's last one. */
  rejectOutOfOrder: boolean;
  /** Spec §6.5 rule 1: the receiver does its work before answering, and the work is slow. */
  slowAcknowledgement: boolean;
  /**
   * Spec §6.1, §6.5 rule 2: the receiver knows `order.fiat_received`, spelled right, and answers
   * 500 to the `order.fiat_recieved` the API sends: every retry fails the same way.
   */
  refuseMisspeltEvent: boolean;
}

/** The reference: no mistake. */
export const NO_MISTAKES: Readonly<Mistakes> = Object.freeze({
  signWithSecretKey: false,
  timestampInSeconds: false,
  signReserialisedBody: false,
  hardCodedNetworks: false,
  skipAccountLookup: false,
  retryExpiredQuote: false,
  resendValidationError: false,
  ignoreRetryAfter: false,
  newMerchantReferenceOnRetry: false,
  pollFast: false,
  publicKeyOnQuote: false,
  verifyParsedJson: false,
  acceptStaleTimestamps: false,
  rejectDuplicates: false,
  rejectOutOfOrder: false,
  slowAcknowledgement: false,
  refuseMisspeltEvent: false,
});

/** A readiness check id (CONTRACT §21). */
export type CheckId =
  | 'signing'
  | 'timestamp_ms'
  | 'raw_body'
  | 'key_environment'
  | 'reference_data'
  | 'account_lookup'
  | 'quote_ttl'
  | 'validation_retry'
  | 'rate_limit'
  | 'idempotent_create'
  | 'polling'
  | 'ack_fast'
  | 'verify_signature'
  | 'stale_timestamp'
  | 'duplicates'
  | 'out_of_order'
  | 'recovers';

export interface Variant {
  /** Kebab-case name: the CLI's `--variant`. */
  id: string;
  /** The one switch this variant turns on. */
  mistake: keyof Mistakes;
  /** What a partner engineer would recognise, in one line. */
  description: string;
  /** The checks its run must fail, no more, no fewer (the matrix test asserts it). */
  fails: CheckId[];
  /** The clause the mistake breaks. */
  clause: string;
}

/**
 * The matrix: each variant, its one mistake and the checks that mistake breaks. docs/readiness.md
 * ("The matrix") shows this table; test/http/readiness-matrix.test.ts runs it.
 */
export const VARIANTS: readonly Variant[] = [
  {
    id: 'sign-with-secret-key',
    mistake: 'signWithSecretKey',
    description: 'signs with the sk_* key instead of the enc_* key',
    fails: ['signing'],
    clause: 'spec §5.2',
  },
  {
    id: 'timestamp-in-seconds',
    mistake: 'timestampInSeconds',
    description: 'svc-timestamp in seconds',
    fails: ['timestamp_ms'],
    clause: 'spec §5.2, §8',
  },
  {
    id: 'reserialised-body',
    mistake: 'signReserialisedBody',
    description: 'signs JSON.stringify(body), sends another serialisation of it',
    fails: ['raw_body'],
    clause: 'spec §5.2',
  },
  {
    id: 'public-key-on-quote',
    mistake: 'publicKeyOnQuote',
    description: 'sends the quote with the public key (then the secret key on the 403)',
    fails: ['key_environment'],
    clause: 'spec §5, §5.1',
  },
  {
    id: 'hard-coded-networks',
    mistake: 'hardCodedNetworks',
    description: 'a network list compiled in, never read from GET /v1/networks',
    fails: ['reference_data'],
    clause: 'spec §4.2 rule 3, §9',
  },
  {
    id: 'no-account-lookup',
    mistake: 'skipAccountLookup',
    description: 'offramp created with the typed account name, no lookup',
    fails: ['account_lookup'],
    clause: 'spec §4.2 rule 1',
  },
  {
    id: 'expired-quote-retried',
    mistake: 'retryExpiredQuote',
    description: 'creates from an expired quote again after it was refused',
    fails: ['quote_ttl'],
    clause: 'spec §2.5, §8',
  },
  {
    id: 'resend-422',
    mistake: 'resendValidationError',
    description: 'resends a 422 unchanged before fixing it',
    fails: ['validation_retry'],
    clause: 'spec §7',
  },
  {
    id: 'ignore-retry-after',
    mistake: 'ignoreRetryAfter',
    description: 'retries a 429 at once, ignoring Retry-After',
    fails: ['rate_limit'],
    clause: 'spec §8, CONTRACT §3',
  },
  {
    id: 'new-reference-on-retry',
    mistake: 'newMerchantReferenceOnRetry',
    description: 'a new merchant_reference when retrying a lost create',
    fails: ['idempotent_create'],
    clause: 'CONTRACT §12',
  },
  { id: 'poll-every-100ms', mistake: 'pollFast', description: 'polls GET order every 100 ms', fails: ['polling'], clause: 'spec §8' },
  {
    id: 'verify-parsed-json',
    mistake: 'verifyParsedJson',
    description: 'verifies the re-serialised parsed JSON, not the raw bytes',
    fails: ['verify_signature'],
    clause: 'spec §6.4',
  },
  {
    id: 'accept-stale',
    mistake: 'acceptStaleTimestamps',
    description: 'accepts deliveries with a stale svc-timestamp',
    fails: ['stale_timestamp'],
    clause: 'spec §6.5 rule 3',
  },
  // The out_of_order probe repeats an older event already delivered: by spec §6.5 rule 4's key
  // (data.reference + event) it is a duplicate too, so this receiver refuses it as well.
  {
    id: 'fail-duplicates',
    mistake: 'rejectDuplicates',
    description: 'answers 409 to a delivery it has already handled',
    fails: ['duplicates', 'out_of_order'],
    clause: 'spec §6.5 rule 4',
  },
  {
    id: 'reject-out-of-order',
    mistake: 'rejectOutOfOrder',
    description: 'answers 409 to an event older than the last one',
    fails: ['out_of_order'],
    clause: 'CONTRACT §6',
  },
  {
    id: 'misspelt-event-refused',
    mistake: 'refuseMisspeltEvent',
    description: 'answers 500 to order.fiat_recieved (spelled as the API spells it), on every retry',
    fails: ['recovers'],
    clause: 'spec §6.1, §6.5 rule 2',
  },
  {
    id: 'slow-ack',
    mistake: 'slowAcknowledgement',
    description: 'does its work (order.created: 5.5 s) before answering',
    fails: ['ack_fast'],
    clause: 'spec §6.5 rule 1',
  },
];

/** The switches of a variant (the reference for `undefined`). */
export function mistakesOf(variant: Variant | undefined): Mistakes {
  return variant ? { ...NO_MISTAKES, [variant.mistake]: true } : { ...NO_MISTAKES };
}
