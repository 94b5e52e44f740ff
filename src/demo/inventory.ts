/**
 * The demo dealer's inventory: 20 vehicles of the fictitious "Demo Motors" (example.com), shared
 * by the AAP and the DMC-12 dealer agents. VINs are well-formed (valid ISO 3779 check digit,
 * model-year letter matching `year`) but invented. Three units are sold, one is pending, so the
 * skills have a realistic reason to answer VEHICLE_UNAVAILABLE.
 */

/** One listing, in the AAP `Vehicle` shape (a subset of its fields). */
export interface DemoVehicle {
  dealer_id: string;
  vehicle_id: string;
  vin: string;
  stock: string;
  rooftop: string;
  year: number;
  make: string;
  model: string;
  trim: string;
  body: 'sedan' | 'suv' | 'truck' | 'hatchback' | 'coupe';
  transmission: 'automatic' | 'manual';
  driveline: 'fwd' | 'rwd' | 'awd' | '4wd';
  fuel: 'gas' | 'hybrid' | 'electric' | 'diesel';
  exterior_color: string;
  condition: 'new' | 'used' | 'cpo';
  /** AAP listing status; only `available | intransit | pending` can be sold to a buyer. */
  status: 'available' | 'intransit' | 'pending' | 'sold';
  /** US dollars. */
  price: number;
  /** Miles. */
  mileage: number;
  vdp_url: string;
}

/** Dealer identity used by both agents and the agent card. */
export const DEALER = {
  dealer_id: 'dealer_demo_motors',
  name: 'Demo Motors',
  rooftop: 'Demo Motors Springfield',
  website: 'https://demo-motors.example.com',
  phone: '+15550100100',
  email: 'sales@demo-motors.example.com',
  address: { street: '100 Example Avenue', city: 'Springfield', region: 'IL', postal_code: '62701', country: 'US' },
  hours: 'Mon-Sat 09:00-19:00, Sun closed',
} as const;

type Row = [string, string, number, string, string, string, DemoVehicle['body'], DemoVehicle['driveline'], DemoVehicle['fuel'], string, DemoVehicle['condition'], DemoVehicle['status'], number, number];

// vin, stock, year, make, model, trim, body, driveline, fuel, colour, condition, status, price, mileage
const ROWS: Row[] = [
  ['2HKRW2H88PH123456', 'DM-1001', 2023, 'Honda', 'CR-V', 'EX', 'suv', 'awd', 'gas', 'Meteorite Gray', 'used', 'available', 29495, 28450],
  ['1HGCY2F52RA004211', 'DM-1002', 2024, 'Honda', 'Accord', 'EX-L', 'sedan', 'fwd', 'hybrid', 'Platinum White', 'used', 'available', 32995, 14820],
  ['JTMB1RFV7RD118842', 'DM-1003', 2024, 'Toyota', 'RAV4', 'XLE', 'suv', 'awd', 'hybrid', 'Blueprint', 'new', 'available', 36850, 12],
  ['4T1C11AK5PU073315', 'DM-1004', 2023, 'Toyota', 'Camry', 'SE', 'sedan', 'fwd', 'gas', 'Midnight Black', 'cpo', 'available', 26990, 21300],
  ['5YJ3E1EA2NF291177', 'DM-1005', 2022, 'Tesla', 'Model 3', 'Long Range', 'sedan', 'awd', 'electric', 'Pearl White', 'used', 'sold', 31500, 30211],
  ['1FTFW1E5XMFA40219', 'DM-1006', 2021, 'Ford', 'F-150', 'XLT', 'truck', '4wd', 'gas', 'Iconic Silver', 'used', 'available', 38900, 41870],
  ['3GNKBKRSXNS220871', 'DM-1007', 2022, 'Chevrolet', 'Blazer', 'RS', 'suv', 'awd', 'gas', 'Red Hot', 'used', 'pending', 33400, 25110],
  ['WBA53BJ03PCM54112', 'DM-1008', 2023, 'BMW', '530i', 'xDrive', 'sedan', 'awd', 'gas', 'Alpine White', 'cpo', 'available', 44750, 18240],
  ['JN1BJ1CW5RW530098', 'DM-1009', 2024, 'Nissan', 'Rogue', 'SV', 'suv', 'fwd', 'gas', 'Gun Metallic', 'new', 'intransit', 31880, 5],
  ['KM8J3CAL3PU661204', 'DM-1010', 2023, 'Hyundai', 'Tucson', 'SEL', 'suv', 'awd', 'gas', 'Amazon Gray', 'used', 'available', 25600, 22950],
  ['1C4RJFBGXMC187723', 'DM-1011', 2021, 'Jeep', 'Grand Cherokee', 'Limited', 'suv', '4wd', 'gas', 'Diamond Black', 'used', 'sold', 34200, 39800],
  ['5NPE34AF5NH410956', 'DM-1012', 2022, 'Hyundai', 'Sonata', 'SEL', 'sedan', 'fwd', 'gas', 'Shimmering Silver', 'used', 'available', 21450, 31020],
  ['JF2SKAJC9RH402231', 'DM-1013', 2024, 'Subaru', 'Forester', 'Premium', 'suv', 'awd', 'gas', 'Autumn Green', 'new', 'available', 32100, 9],
  ['WVWAA7AJ4SM008812', 'DM-1014', 2025, 'Volkswagen', 'Golf', 'S', 'hatchback', 'fwd', 'gas', 'Pure White', 'new', 'available', 24990, 3],
  ['1G1ZD5ST6LF140077', 'DM-1015', 2020, 'Chevrolet', 'Malibu', 'LT', 'sedan', 'fwd', 'gas', 'Mosaic Black', 'used', 'available', 16900, 52340],
  ['5UXCR6C07N9K33019', 'DM-1016', 2022, 'BMW', 'X5', 'xDrive40i', 'suv', 'awd', 'gas', 'Carbon Black', 'cpo', 'available', 52900, 27650],
  ['JTDKAMFU8R3091554', 'DM-1017', 2024, 'Toyota', 'Prius', 'LE', 'hatchback', 'fwd', 'hybrid', 'Cutting Edge', 'new', 'available', 29450, 7],
  ['3MW5R1J05P8C91107', 'DM-1018', 2023, 'BMW', '330i', 'Sport', 'sedan', 'rwd', 'gas', 'Portimao Blue', 'used', 'sold', 36100, 19870],
  ['1N4BL4BV0MC250316', 'DM-1019', 2021, 'Nissan', 'Altima', 'SR', 'sedan', 'fwd', 'gas', 'Scarlet Ember', 'used', 'available', 19250, 36400],
  ['2T3P1RFV0SW005541', 'DM-1020', 2025, 'Toyota', 'RAV4', 'LE', 'suv', 'fwd', 'gas', 'Lunar Rock', 'new', 'available', 30450, 4],
];

/** Builds a fresh copy of the inventory (servers mutate nothing in it, but tests may). */
export function demoInventory(): DemoVehicle[] {
  return ROWS.map(([vin, stock, year, make, model, trim, body, driveline, fuel, colour, condition, status, price, mileage]) => ({
    dealer_id: DEALER.dealer_id,
    vehicle_id: `veh_${stock.toLowerCase().replace('-', '_')}`,
    vin,
    stock,
    rooftop: DEALER.rooftop,
    year,
    make,
    model,
    trim,
    body,
    transmission: 'automatic',
    driveline,
    fuel,
    exterior_color: colour,
    condition,
    status,
    price,
    mileage,
    vdp_url: `${DEALER.website}/inventory/${stock.toLowerCase()}`,
  }));
}

/** Statuses a buyer can still act on (AAP VEHICLE_UNAVAILABLE is everything else). */
export const SELLABLE_STATUSES: ReadonlySet<DemoVehicle['status']> = new Set(['available', 'intransit', 'pending']);
