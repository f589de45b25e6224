// Tiers, statuses and features: the catalogue of what a subscription can be.
export const TIERS = ['STARTER', 'PROFESSIONAL', 'ENTERPRISE'] as const;
export type Tier = (typeof TIERS)[number];

export const STATUSES = ['ACTIVE', 'SUSPENDED', 'CANCELLED'] as const;
export type Status = (typeof STATUSES)[number];

/** What a subscription may use; each endpoint is guarded by one feature. */
export const FEATURES = [
  'grants.read',
  'grants.search',
  'subscription.read',
  'grants.export',
  'alerts.manage',
] as const;
export type Feature = (typeof FEATURES)[number];

const TIER_LIMITS: Record<Tier, { ratePerSecond: number; monthlyLimit: number }> = {
  STARTER: { ratePerSecond: 10, monthlyLimit: 10_000 },
  PROFESSIONAL: { ratePerSecond: 50, monthlyLimit: 100_000 },
  ENTERPRISE: { ratePerSecond: 200, monthlyLimit: 1_000_000 },
};

type Features = Record<Feature, boolean>;

/**
 * A feature's value for a subscription that has none of its own: every feature is on for every
 * tier except grants.export (GET /grants/export), on for ENTERPRISE only. alerts.manage (the
 * /alerts endpoints) is on for every tier.
 */
export const tierFeatureDefault = (tier: Tier, feature: Feature): boolean =>
  feature !== 'grants.export' || tier === 'ENTERPRISE';

export interface Subscription {
  id: string;
  name: string;
  tier: Tier;
  status: Status;
  /** Operator overrides; null means the tier's value. */
  monthlyLimitOverride: number | null;
  rateLimitOverride: number | null;
  features: Features;
  createdAt: string;
}

export const monthlyLimitOf = (s: Subscription): number => s.monthlyLimitOverride ?? TIER_LIMITS[s.tier].monthlyLimit;
export const rateLimitOf = (s: Subscription): number => s.rateLimitOverride ?? TIER_LIMITS[s.tier].ratePerSecond;

export const MAX_MONTHLY_LIMIT = 1_000_000_000;
export const MAX_RATE_LIMIT = 100_000;
